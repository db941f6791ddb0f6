// SPDX-License-Identifier: Apache-2.0
// A candidate's reschedulable pods and disruption cost are kept per machine across cluster
// indexes (methods/candidates.ts) while its pods are the same objects; a pod replaced by a
// write (here one that became terminal, one deleted, one added) gives the machine's candidate
// its pods and cost again, exactly as building it from scratch would. The candidates of a reason
// are kept per StateNode too, and follow a new StateNode, pool or instance-type catalogue.
import { describe, expect, it } from 'vitest';
import { emptySnapshot } from '../../src/core/cluster/snapshot.js';
import { indexCluster, type ClusterIndex } from '../../src/core/cluster/state.js';
import type { Pod } from '../../src/core/cluster/types.js';
import type { EvalOutput, NodeResult } from '../../src/core/eval/output.js';
import { candidatesFor, countCandidates, toCandidate } from '../../src/control/reconciler/methods/candidates.js';
import { makeNodeClaimAndNode, makeNodePool, makePod } from '../support/cluster-builder.js';

function index(pods: Pod[]): ClusterIndex {
  const s = emptySnapshot();
  const { nodeClaim, node } = makeNodeClaimAndNode('default', 0);
  s.nodePools.push(makeNodePool('default'));
  s.nodeClaims.push(nodeClaim);
  s.nodes.push(node);
  s.pods.push(...pods);
  return indexCluster(s);
}

describe('a candidate kept across indexes', () => {
  it('follows every change of its pods', () => {
    const first = index([]);
    const node = first.stateNodes[0].node!.metadata.name;
    const a = makePod('a', node, { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '1000' } });
    const b = makePod('b', node);
    const views = [
      [a, b],
      [a, b], // the same objects in a new index: kept
      [{ ...a, status: { phase: 'Succeeded' } } as Pod, b], // a replaced: terminal now
      [b],
      [b, makePod('c', node, { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '-5' } })],
    ];
    // The same Node and NodeClaim objects throughout, as an unchanged machine keeps in a real index.
    const machine = first.stateNodes[0];
    for (const pods of views) {
      const sn = { ...machine, pods };
      const got = toCandidate(sn, 'default', new Map());
      const fresh = toCandidate({ ...sn, node: { ...sn.node! } }, 'default', new Map()); // a new Node object: no memo
      expect(got.reschedulable.map((p) => p.metadata.name)).toEqual(fresh.reschedulable.map((p) => p.metadata.name));
      expect(got.disruptionCost).toBe(fresh.disruptionCost);
      expect(got.ref.pods).toBe(pods.filter((p) => p.status?.phase !== 'Succeeded').length);
    }
  });
});

describe('the candidates of a reason kept across ticks', () => {
  const evaluation = (name: string, nodePool: string) =>
    ({
      nodes: {
        [name]: { nodePool, candidate: true, reasons: ['Underutilized'], blocked: [] } as unknown as NodeResult,
      },
      nodePools: {},
      warnings: [],
    }) as unknown as EvalOutput;

  it('are built again for a new StateNode, pool or catalogue, and only then', () => {
    const first = index([]);
    const name = first.stateNodes[0].node!.metadata.name;
    const types = new Map();
    const once = candidatesFor('Underutilized', evaluation(name, 'default'), first, types);
    expect(candidatesFor('Underutilized', evaluation(name, 'default'), first, types)[0]).toBe(once[0]);
    // A pod came: a new index, a new StateNode of the same name.
    const later = index([makePod('a', name)]);
    const [c] = candidatesFor('Underutilized', evaluation(name, 'default'), later, types);
    expect(c.reschedulable.map((p) => p.metadata.name)).toEqual(['a']);
    expect(c.ref.pods).toBe(1);
    expect(candidatesFor('Underutilized', evaluation(name, 'other'), later, types)[0].ref.nodePool).toBe('other');
    const catalogue = new Map();
    expect(candidatesFor('Underutilized', evaluation(name, 'other'), later, catalogue)[0]).not.toBe(c);
  });
});

describe("the count of a reason's candidates (the eligible-nodes gauge, every loop)", () => {
  it('is kept for the same evaluation and index, and counted again on a new index', () => {
    const first = index([]);
    const name = first.stateNodes[0].node!.metadata.name;
    const ev = {
      nodes: { [name]: { nodePool: 'default', candidate: true, reasons: ['Drifted'], blocked: [] } },
      nodePools: {},
      warnings: [],
    } as unknown as EvalOutput;
    expect(countCandidates('Drifted', ev, first)).toBe(1);
    expect(countCandidates('Underutilized', ev, first)).toBe(0);
    // The same verdicts over an index whose machine has no provider ID yet: nothing to act on.
    const sn = first.stateNodes[0];
    const launching = { ...first, nodesByName: new Map([[name, { ...sn, providerID: undefined }]]) } as ClusterIndex;
    expect(countCandidates('Drifted', ev, launching)).toBe(0);
    expect(countCandidates('Drifted', ev, first)).toBe(1);
    expect(candidatesFor('Drifted', ev, first, new Map())).toHaveLength(1);
  });
});
