// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import {
  nodeAffinityFits,
  nodeLocalFit,
  nodeSelectorFits,
  resourcesFit,
  taintsTolerated,
  tolerates,
  type PlacementTarget,
} from '../../src/world/scheduling/predicates.js';
import { parseResourceList } from '../../src/core/cluster/resources.js';
import { pod } from './builders.js';

const target = (o: Partial<PlacementTarget> = {}): PlacementTarget => ({
  name: 'n1',
  labels: {
    'topology.kubernetes.io/zone': 'us-west-2a',
    'kubernetes.io/arch': 'amd64',
    'node.kubernetes.io/instance-type': 'm5.large',
  },
  taints: [],
  allocatable: parseResourceList({ cpu: '2', memory: '8Gi', pods: '3' }),
  pods: [],
  ...o,
});

const affinity = (...terms: { key: string; operator: string; values?: string[] }[][]) => ({
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: terms.map((matchExpressions) => ({ matchExpressions })),
    },
  },
});

describe('resourcesFit', () => {
  it('fits within allocatable minus what is already placed', () => {
    const t = target({ pods: [pod('a', { cpu: '1', memory: '4Gi' })] });
    expect(resourcesFit(pod('b', { cpu: '1', memory: '4Gi' }), t)).toBeUndefined();
    expect(resourcesFit(pod('c', { cpu: '1500m' }), t)).toBe('insufficient cpu (requested 1500m, free 1 of 2)');
  });

  it('counts pod slots', () => {
    const t = target({ pods: [pod('a'), pod('b'), pod('c')] });
    expect(resourcesFit(pod('d'), t)).toBe('insufficient pods (requested 1, free 0 of 3)');
  });

  it('an extended resource the node lacks does not fit', () => {
    expect(resourcesFit(pod('g', { gpu: '1' }), target())).toMatch(/^insufficient nvidia.com\/gpu/);
  });
});

describe('nodeSelectorFits', () => {
  it('passes when every key matches, names the first mismatch', () => {
    expect(
      nodeSelectorFits(pod('p', { nodeSelector: { 'topology.kubernetes.io/zone': 'us-west-2a' } }), target().labels),
    ).toBeUndefined();
    expect(
      nodeSelectorFits(pod('p', { nodeSelector: { 'topology.kubernetes.io/zone': 'us-west-2b' } }), target().labels),
    ).toBe(
      'node selector topology.kubernetes.io/zone=us-west-2b does not match (topology.kubernetes.io/zone=us-west-2a)',
    );
  });
});

describe('nodeAffinityFits', () => {
  const labels = target().labels;
  it.each([
    ['In hit', affinity([{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }]), true],
    ['In miss', affinity([{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }]), false],
    [
      'terms are ORed',
      affinity(
        [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }],
        [{ key: 'topology.kubernetes.io/zone', operator: 'Exists' }],
      ),
      true,
    ],
    [
      'expressions are ANDed',
      affinity([
        { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
        { key: 'gpu', operator: 'Exists' },
      ]),
      false,
    ],
    ['NotIn', affinity([{ key: 'node.kubernetes.io/instance-type', operator: 'NotIn', values: ['m5.large'] }]), false],
    ['DoesNotExist', affinity([{ key: 'gpu', operator: 'DoesNotExist' }]), true],
    ['Gt on a non-numeric label', affinity([{ key: 'kubernetes.io/arch', operator: 'Gt', values: ['1'] }]), false],
    ['an empty term matches nothing', affinity([]), false],
  ])('%s', (_, a, fits) => {
    expect(nodeAffinityFits(pod('p', { affinity: a }), labels) === undefined).toBe(fits);
  });

  it('no affinity fits everywhere', () => expect(nodeAffinityFits(pod('p'), {})).toBeUndefined());
});

describe('taints and tolerations', () => {
  const gpuTaint = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' };
  it.each([
    [{ key: 'nvidia.com/gpu', operator: 'Equal' as const, value: 'true', effect: 'NoSchedule' }, true],
    [{ key: 'nvidia.com/gpu', operator: 'Equal' as const, value: 'false' }, false],
    [{ key: 'nvidia.com/gpu', operator: 'Exists' as const }, true],
    [{ operator: 'Exists' as const }, true],
    [{ key: 'nvidia.com/gpu', operator: 'Exists' as const, effect: 'NoExecute' }, false],
    [{ key: 'other', operator: 'Exists' as const }, false],
  ])('%j tolerates the gpu taint: %s', (t, expected) => expect(tolerates(t, gpuTaint)).toBe(expected));

  it('NoSchedule and NoExecute must be tolerated, PreferNoSchedule never filters', () => {
    expect(taintsTolerated(pod('p'), [gpuTaint])).toBe('did not tolerate taint nvidia.com/gpu=true:NoSchedule');
    expect(taintsTolerated(pod('p'), [{ key: 'dedicated', effect: 'NoExecute' }])).toBe(
      'did not tolerate taint dedicated:NoExecute',
    );
    expect(taintsTolerated(pod('p'), [{ key: 'soft', effect: 'PreferNoSchedule' }])).toBeUndefined();
    expect(
      taintsTolerated(pod('p', { tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists' }] }), [gpuTaint]),
    ).toBeUndefined();
  });

  it('the disrupted taint blocks new placements even for pods that tolerate everything', () => {
    const disrupted = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' };
    expect(taintsTolerated(pod('p', { tolerations: [{ operator: 'Exists' }] }), [disrupted])).toBe(
      'node is being disrupted (taint karpenter.sh/disrupted:NoSchedule)',
    );
  });
});

describe('nodeLocalFit', () => {
  it('reports taints before affinity before resources', () => {
    const t = target({ taints: [{ key: 'a', effect: 'NoSchedule' }] });
    const p = pod('p', { cpu: '8', nodeSelector: { 'kubernetes.io/arch': 'arm64' } });
    expect(nodeLocalFit(p, t)).toMatch(/^did not tolerate/);
    expect(nodeLocalFit(p, target())).toMatch(/^node selector/);
    expect(nodeLocalFit(pod('q', { cpu: '8' }), target())).toMatch(/^insufficient cpu/);
    expect(nodeLocalFit(pod('r', { cpu: '1' }), target())).toBeUndefined();
  });
});
