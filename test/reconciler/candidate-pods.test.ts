// SPDX-License-Identifier: Apache-2.0
// A candidate's reschedulable pods and disruption cost are kept per machine across cluster
// indexes (methods/candidates.ts) while its pods are the same objects; a pod replaced by a
// write (here one that became terminal, one deleted, one added) gives the machine's candidate
// its pods and cost again, exactly as building it from scratch would. The candidates of a reason
// are kept per StateNode too, and follow a new StateNode, pool or instance-type catalogue.
import { describe, expect, it } from 'vitest';
import { emptySnapshot } from '../../src/core/cluster/snapshot.js';
import { indexCluster, type ClusterIndex } from '../../src/core/cluster/state.js';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_ZONE, type Pod } from '../../src/core/cluster/types.js';
import type { InstanceType } from '../../src/world/cloud/provider.js';
import type { EvalOutput, NodeResult } from '../../src/core/eval/output.js';
import {
  bySavingsRatio,
  candidatesBySavings,
  candidatesFor,
  countCandidates,
  toCandidate,
} from '../../src/control/reconciler/methods/candidates.js';
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

describe("a reason's candidate list (asked by the methods, validation and the consolidated-state check)", () => {
  it('is a new array per ask, kept per evaluation, index and catalogue, and most savings first when asked so', () => {
    const s = emptySnapshot();
    s.nodePools.push(makeNodePool('default'));
    const names: string[] = [];
    for (let i = 0; i < 4; i++) {
      const { nodeClaim, node } = makeNodeClaimAndNode('default', i);
      s.nodeClaims.push(nodeClaim);
      s.nodes.push(node);
      names.push(node.metadata.name);
      // More pods, a higher disruption cost: the savings order differs from the listed one.
      for (let p = 0; p < 3 - i; p++) s.pods.push(makePod(`p${i}-${p}`, node.metadata.name));
    }
    const first = indexCluster(s);
    const ev = {
      nodes: Object.fromEntries(
        names.map((n) => [n, { nodePool: 'default', candidate: true, reasons: ['Underutilized'], blocked: [] }]),
      ),
      nodePools: {},
      warnings: [],
    } as unknown as EvalOutput;
    // One price for every node, so only the disruption cost orders them.
    const labels = s.nodes[0].metadata.labels!;
    const offering = { zone: labels[LABEL_ZONE], capacityType: labels[LABEL_CAPACITY_TYPE], price: 1 };
    const types = new Map([[labels[LABEL_INSTANCE_TYPE], { offerings: [offering] } as unknown as InstanceType]]);
    const listed = candidatesFor('Underutilized', ev, first, types).map((c) => c.ref.node);
    expect(listed).toEqual(names);
    // A caller that sorts or empties its array does not change the next caller's.
    candidatesFor('Underutilized', ev, first, types).reverse();
    candidatesBySavings('Underutilized', ev, first, types).length = 0;
    expect(candidatesFor('Underutilized', ev, first, types).map((c) => c.ref.node)).toEqual(names);
    const bySavings = candidatesBySavings('Underutilized', ev, first, types);
    expect(bySavings.map((c) => c.ref.node)).toEqual(
      candidatesFor('Underutilized', ev, first, types)
        .sort(bySavingsRatio)
        .map((c) => c.ref.node),
    );
    expect(bySavings.map((c) => c.ref.node)).not.toEqual(names);
    // The same verdicts over an index whose first machine has no provider ID: it is not listed.
    const sn = first.nodesByName.get(names[0])!;
    const launching = {
      ...first,
      nodesByName: new Map([...first.nodesByName, [names[0], { ...sn, providerID: undefined }]]),
    } as ClusterIndex;
    expect(candidatesFor('Underutilized', ev, launching, types).map((c) => c.ref.node)).toEqual(names.slice(1));
    expect(candidatesBySavings('Underutilized', ev, launching, types)).toHaveLength(3);
    expect(candidatesFor('Underutilized', ev, first, types)).toHaveLength(4);
  });
});
