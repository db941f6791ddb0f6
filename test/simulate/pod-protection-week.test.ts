// SPDX-License-Identifier: Apache-2.0
// A week of `kpol simulate` (issue 15): `pods where app = "coredns" never Underutilized`. Four
// lightly loaded nodes, one of them running CoreDNS. Consolidation packs the others but never
// takes the CoreDNS node; without the statement it does. With every node drifted as well, drift
// still replaces the CoreDNS node: the protection names Underutilized only.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/core/cluster/types.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { simulationObjects } from '../../src/edge/simulate/cluster-objects.js';
import { simulate } from '../../src/edge/simulate/simulated-run.js';
import { makeNodeClaimAndNode, makeNodePool, makePod, toList } from '../support/cluster-builder.js';

const FROM = Date.parse('2026-11-23T00:00:00Z');
const WEEK = 7 * 24 * 3600_000;
const NODES = 4;

const replicaSet = (name: string, app: string, replicas: number): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: 'default', uid: `uid-rs-${name}` },
    spec: {
      replicas,
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app } },
        spec: { containers: [{ name: 'main', resources: { requests: { cpu: '300m', memory: '256Mi' } } }] },
      },
    },
  }) as unknown as KubeObject;

/** The node names, the CoreDNS node's name, and the objects of the cluster. */
function cluster(drifted: boolean) {
  const out: KubeObject[] = [makeNodePool('web', { consolidationPolicy: 'WhenEmptyOrUnderutilized' })];
  const names: string[] = [];
  for (let i = 0; i < NODES; i++) {
    const { nodeClaim, node } = makeNodeClaimAndNode('web', i, { createdAt: '2026-11-20T00:00:00Z', drifted });
    names.push(node.metadata.name);
    const app = i === 0 ? 'coredns' : 'web';
    const pod = makePod(`${app}-${i}`, node.metadata.name, {
      labels: { app },
      requests: { cpu: '300m', memory: '256Mi' },
    });
    pod.metadata.ownerReferences = [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: app, uid: `uid-rs-${app}`, controller: true },
    ];
    out.push(nodeClaim, node, pod);
  }
  out.push(replicaSet('coredns', 'coredns', 1), replicaSet('web', 'web', NODES - 1));
  const { objects, errors } = simulationObjects(JSON.stringify(toList(out)), 'cluster.json');
  expect(errors).toEqual([]);
  return { objects, coredns: names[0]! };
}

async function week(drifted: boolean, protection: string) {
  const text = `policy p for nodepool web {
  consolidate when empty or underutilized after 0s
  budget 1
${protection}
}
`;
  const loaded = loadPolicies([{ fileName: 'p.kpol', text }]);
  expect(loaded.ok).toBe(true);
  const { objects, coredns } = cluster(drifted);
  const t = await simulate({ objects, policies: loaded.policies, fromMs: FROM, forMs: WEEK, stepMs: 60_000 });
  const of = (reason: string) => t.disruptions.filter((d) => d.reason === reason);
  const hits = (reason: string) => of(reason).filter((d) => d.nodes.includes(coredns)).length;
  return { of, hits };
}

describe('a simulated week with pod protection', () => {
  const PROTECT = '  pods where app = "coredns" never Underutilized';

  it('consolidation packs the other nodes but never takes the CoreDNS node', async () => {
    const w = await week(false, PROTECT);
    expect(w.of('Underutilized').length + w.of('Empty').length).toBeGreaterThan(0);
    expect(w.hits('Underutilized')).toBe(0);
    // Control: the same week without the statement consolidates the CoreDNS node.
    const control = await week(false, '');
    expect(control.hits('Underutilized') + control.hits('Empty')).toBeGreaterThan(0);
  }, 120_000);

  it('drift still replaces the CoreDNS node: only Underutilized is protected', async () => {
    const w = await week(true, PROTECT);
    expect(w.hits('Drifted')).toBe(1);
    expect(w.hits('Underutilized')).toBe(0);
  }, 120_000);
});
