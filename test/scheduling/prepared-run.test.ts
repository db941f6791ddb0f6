// SPDX-License-Identifier: Apache-2.0
// Two things a PreparedScheduling run keeps for itself, each against the reference
// simulateScheduling:
// - Its changed slots (ChangedSlots): once a slot the run placed pods on fails a pod shape's
//   node-local checks, later pods of that shape skip it, which holds only while slots lose room.
//   A pod with a negative request (the API server rejects one; a fixture or a hand-made
//   simulation input need not) gives its slot room back: a later pod of the skipped shape must
//   find that slot again.
// - Its view's targets (RunTargets), made only when topology first reads them: they must then
//   hold the run copies of the nodes it placed pods on and the claims it opened before.
import { describe, expect, it } from 'vitest';
import { parseResourceList } from '../../src/core/cluster/resources.js';
import type { Pod } from '../../src/core/cluster/types.js';
import { PreparedScheduling } from '../../src/world/scheduling/prepared.js';
import { simulateScheduling, type SchedulingResult, type SimNode } from '../../src/world/scheduling/simulate.js';
import { DEFAULT_POOL, pod, simNode, TYPES } from './builders.js';

const withGpu = (name: string): SimNode => ({
  ...simNode(name, { cpu: '8' }),
  allocatable: parseResourceList({ cpu: '8', memory: '8Gi', pods: '110', 'nvidia.com/gpu': '1' }),
});

const placed = (r: SchedulingResult) => Object.fromEntries([...r.placements].map(([p, at]) => [p.metadata.name, at]));

/** The reference's placements, once a prepared run over these nodes has placed the pods the same. */
function placesAsReference(nodes: SimNode[], pods: Pod[], pools: 'pools' | 'none' = 'none') {
  const base = {
    nodes,
    nodePools: pools === 'pools' ? [DEFAULT_POOL] : [],
    instanceTypes: pools === 'pools' ? TYPES : [],
    consolidation: false,
  };
  const want = placed(simulateScheduling({ ...base, pods }));
  expect(placed(new PreparedScheduling(base).run({ pods }))).toEqual(want);
  return want;
}

describe('a run skipping the changed slots a pod shape no longer fits', () => {
  it('finds a slot again once a placement gave it room back', () => {
    // Equal cpu and memory: the placing order is this order (byDescendingSize is stable).
    const pods = [
      pod('g1', { cpu: '1', memory: '1Gi', gpu: '1' }), // a
      pod('g2', { cpu: '1', memory: '1Gi', gpu: '1' }), // a is full of GPUs now: b
      pod('giver', { cpu: '1', memory: '1Gi', gpu: '-1' }), // a, which gets a GPU back
      pod('g3', { cpu: '1', memory: '1Gi', gpu: '1' }), // a again
    ];
    expect(placesAsReference([withGpu('a'), withGpu('b')], pods).g3).toEqual({ node: 'a' });
  });

  it('places other shapes on a slot one shape no longer fits', () => {
    const pods = [
      pod('big1', { cpu: '6' }), // a
      pod('big2', { cpu: '6' }), // not a (2 left): b
      pod('small', { cpu: '2' }), // a's last 2
    ];
    expect(placesAsReference([simNode('a', { cpu: '8' }), simNode('b', { cpu: '8' })], pods)).toEqual({
      big1: { node: 'a' },
      big2: { node: 'b' },
      small: { node: 'a' },
    });
  });
});

const spread = [
  {
    maxSkew: 1,
    topologyKey: 'kubernetes.io/hostname',
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchLabels: { app: 'x' } },
  },
];

describe("a run's view of the targets, made on topology's first read", () => {
  it('counts the pods the run placed on nodes before', () => {
    const pods = [
      pod('plain', { cpu: '1', labels: { app: 'x' } }), // a, with no topology to read
      pod('spread', { cpu: '1', labels: { app: 'x' }, topologySpreadConstraints: spread }), // a has one already: b
    ];
    expect(placesAsReference([simNode('a', { cpu: '4' }), simNode('b', { cpu: '4' })], pods).spread).toEqual({
      node: 'b',
    });
  });

  it('counts the pods the run placed on claims before', () => {
    const pods = [
      pod('plain', { cpu: '1', labels: { app: 'x' } }), // fits no node: claim 0
      pod('spread', { cpu: '1', labels: { app: 'x' }, topologySpreadConstraints: spread }), // not claim 0: claim 1
    ];
    expect(placesAsReference([simNode('a', { cpu: '500m' })], pods, 'pools')).toEqual({
      plain: { newNodeClaim: 0 },
      spread: { newNodeClaim: 1 },
    });
  });
});
