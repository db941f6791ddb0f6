// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import type { PlacementTarget } from '../../src/world/scheduling/predicates.js';
import { parseResourceList } from '../../src/core/cluster/resources.js';
import {
  antiAffinityFits,
  podAffinityFits,
  topologySpreadFits,
  topologyView,
} from '../../src/world/scheduling/topology.js';
import { pod, ZONES } from './builders.js';
import type { Pod } from '../../src/core/cluster/types.js';

const HOST = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';

const node = (name: string, zone: string, pods: Pod[] = []): PlacementTarget => ({
  name,
  labels: { [HOST]: name, [ZONE]: zone },
  taints: [],
  allocatable: parseResourceList({ cpu: '8', pods: '110' }),
  pods,
});

const anti = (key: string, app: string, extra: Record<string, unknown> = {}) => ({
  podAntiAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [
      { topologyKey: key, labelSelector: { matchLabels: { app } }, ...extra },
    ],
  },
});
const spread = (key: string, app: string, maxSkew = 1, extra: Record<string, unknown> = {}) => [
  { maxSkew, topologyKey: key, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app } }, ...extra },
];

describe('required pod anti-affinity', () => {
  const web = (n: string, ns = 'default') =>
    pod(n, { labels: { app: 'web' }, namespace: ns, affinity: anti(HOST, 'web') });

  it('refuses a host that already runs a matching pod, accepts another', () => {
    const a = node('a', ZONES[0], [web('w1')]);
    const b = node('b', ZONES[0]);
    const view = topologyView([a, b]);
    expect(antiAffinityFits(web('w2'), a, view)).toBe(
      'pod anti-affinity: default/w1 already in kubernetes.io/hostname=a',
    );
    expect(antiAffinityFits(web('w2'), b, view)).toBeUndefined();
  });

  it('is symmetric: a placed pod’s anti-affinity keeps matching pods away', () => {
    const a = node('a', ZONES[0], [web('w1')]);
    const view = topologyView([a]);
    expect(antiAffinityFits(pod('plain', { labels: { app: 'web' } }), a, view)).toBe(
      'pod anti-affinity of default/w1 in kubernetes.io/hostname=a',
    );
    expect(antiAffinityFits(pod('other', { labels: { app: 'db' } }), a, view)).toBeUndefined();
  });

  it('on zone, refuses every node of the zone', () => {
    const zoned = (n: string) => pod(n, { labels: { app: 'z' }, affinity: anti(ZONE, 'z') });
    const a = node('a', ZONES[0], [zoned('z1')]);
    const a2 = node('a2', ZONES[0]);
    const b = node('b', ZONES[1]);
    const view = topologyView([a, a2, b]);
    expect(antiAffinityFits(zoned('z2'), a2, view)).toMatch(/already in topology.kubernetes.io\/zone=us-west-2a/);
    expect(antiAffinityFits(zoned('z2'), b, view)).toBeUndefined();
  });

  it('looks only in the pod’s namespace unless namespaces are given', () => {
    const a = node('a', ZONES[0], [pod('w1', { labels: { app: 'web' }, namespace: 'other' })]);
    const view = topologyView([a]);
    expect(antiAffinityFits(web('w2'), a, view)).toBeUndefined();
    const wide = pod('w3', { labels: { app: 'web' }, affinity: anti(HOST, 'web', { namespaces: ['other'] }) });
    expect(antiAffinityFits(wide, a, view)).toMatch(/other\/w1/);
    const all = pod('w4', { labels: { app: 'web' }, affinity: anti(HOST, 'web', { namespaceSelector: {} }) });
    expect(antiAffinityFits(all, a, view)).toMatch(/other\/w1/);
  });

  it('matchExpressions selectors work too', () => {
    const a = node('a', ZONES[0], [pod('x', { labels: { tier: 'cache' } })]);
    const p = pod('p', {
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            {
              topologyKey: HOST,
              labelSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['cache', 'db'] }] },
            },
          ],
        },
      },
    });
    expect(antiAffinityFits(p, a, topologyView([a]))).toMatch(/default\/x/);
  });
});

describe('required pod affinity', () => {
  const aff = {
    podAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        { topologyKey: ZONE, labelSelector: { matchLabels: { app: 'db' } } },
      ],
    },
  };
  it('needs a matching pod in the domain', () => {
    const a = node('a', ZONES[0], [pod('db', { labels: { app: 'db' } })]);
    const b = node('b', ZONES[1]);
    const view = topologyView([a, b]);
    expect(podAffinityFits(pod('p', { affinity: aff }), a, view)).toBeUndefined();
    expect(podAffinityFits(pod('p', { affinity: aff }), b, view)).toBe(
      'pod affinity: no matching pod in topology.kubernetes.io/zone=us-west-2b',
    );
  });
  it('the first pod of a self-matching group may go anywhere', () => {
    const b = node('b', ZONES[1]);
    expect(podAffinityFits(pod('db1', { labels: { app: 'db' }, affinity: aff }), b, topologyView([b]))).toBeUndefined();
    expect(podAffinityFits(pod('p', { affinity: aff }), b, topologyView([b]))).toMatch(/^pod affinity/);
  });
});

describe('topology spread (DoNotSchedule)', () => {
  const s = (n: string, key = ZONE, maxSkew = 1, extra = {}) =>
    pod(n, { labels: { app: 's' }, topologySpreadConstraints: spread(key, 's', maxSkew, extra) });

  it('refuses the fuller zone when skew would exceed maxSkew', () => {
    const a = node('a', ZONES[0], [s('s1')]);
    const b = node('b', ZONES[1]);
    const view = topologyView([a, b]);
    expect(topologySpreadFits(s('s2'), a, view)).toBe(
      'topology spread topology.kubernetes.io/zone maxSkew 1: ' +
        'topology.kubernetes.io/zone=us-west-2a has 1 matching pods, minimum 0',
    );
    expect(topologySpreadFits(s('s2'), b, view)).toBeUndefined();
  });

  it('maxSkew 2 allows one more', () => {
    const a = node('a', ZONES[0], [s('s1', ZONE, 2)]);
    const view = topologyView([a, node('b', ZONES[1])]);
    expect(topologySpreadFits(s('s2', ZONE, 2), a, view)).toBeUndefined();
  });

  it('launchable zones count as empty domains', () => {
    const a = node('a', ZONES[0]);
    const b = node('b', ZONES[1], [s('s1')]);
    expect(topologySpreadFits(s('s2'), a, topologyView([a, b]))).toBeUndefined();
    const withC = topologyView([a, b], { launchableZones: ZONES });
    expect(topologySpreadFits(s('s2'), b, withC)).toMatch(/minimum 0/);
  });

  it('nodes outside the pod’s node affinity are not domains', () => {
    const a = node('a', ZONES[0], [s('s1')]);
    const b = node('b', ZONES[1]);
    const pinned = pod('s2', {
      labels: { app: 's' },
      nodeSelector: { [ZONE]: ZONES[0] },
      topologySpreadConstraints: spread(ZONE, 's'),
    });
    expect(topologySpreadFits(pinned, a, topologyView([a, b]))).toBeUndefined();
  });

  it('minDomains above the number of domains makes the minimum 0', () => {
    const a = node('a', ZONES[0], [s('s1', ZONE, 1)]);
    const b = node('b', ZONES[1], [s('s2', ZONE, 1)]);
    const view = topologyView([a, b]);
    expect(topologySpreadFits(s('s3'), a, view)).toBeUndefined();
    expect(topologySpreadFits(s('s3', ZONE, 1, { minDomains: 3 }), a, view)).toMatch(/minimum 0/);
  });

  it('on hostname, a launchable fresh node is a domain with 0 pods', () => {
    const a = node('a', ZONES[0], [s('s1', HOST)]);
    const b = node('b', ZONES[0], [s('s2', HOST)]);
    expect(topologySpreadFits(s('s3', HOST), a, topologyView([a, b]))).toBeUndefined();
    expect(topologySpreadFits(s('s3', HOST), a, topologyView([a, b], { newHostnamePossible: true }))).toMatch(
      /kubernetes.io\/hostname=a has 1/,
    );
  });

  it('pods that do not match the selector are not counted', () => {
    const a = node('a', ZONES[0], [pod('x', { labels: { app: 'other' } })]);
    const view = topologyView([a, node('b', ZONES[1])]);
    expect(topologySpreadFits(s('s1'), a, view)).toBeUndefined();
  });
});
