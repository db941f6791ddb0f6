// SPDX-License-Identifier: Apache-2.0
// The Balanced consolidation policy (KARPENTER.md#single-node): approve a move iff
// (savings / pool cost) / (move disruption / pool disruption) ≥ 1/2.
import { describe, expect, it } from 'vitest';
import type { PolicySpec } from '../../rules/model.js';
import { loadCatalog } from '../../src/world/cloud/catalog.js';
import { loadSnapshot } from '../../src/core/cluster/snapshot.js';
import { indexCluster } from '../../src/core/cluster/state.js';
import type { KubeObject } from '../../src/core/cluster/types.js';
import { FakeClock } from '../../src/core/clock.js';
import { EventLog } from '../../src/core/observe/event-log.js';
import { toCandidate } from '../../src/control/reconciler/methods/candidates.js';
import { announceMultiNode, balancedApproves, balancedScores } from '../../src/control/reconciler/methods/balanced.js';
import type { MethodContext } from '../../src/control/reconciler/methods/method.js';
import { makeNodeClaimAndNode, makeNodePool, makePod, toList } from '../support/cluster-builder.js';

const types = new Map(loadCatalog().map((t) => [t.name, t]));
const balanced = { consolidationPolicy: 'Balanced' } as PolicySpec;

function setup(podsPerNode: number[], policy: PolicySpec | undefined = balanced) {
  const objects: KubeObject[] = [makeNodePool('p')];
  podsPerNode.forEach((n, i) => {
    const { nodeClaim, node } = makeNodeClaimAndNode('p', i, {
      instanceType: 'm5.xlarge',
      zone: 'us-west-2a',
      capacityType: 'on-demand',
    });
    objects.push(nodeClaim, node);
    for (let k = 0; k < n; k++) objects.push(makePod(`w-${i}-${k}`, node.metadata.name));
  });
  const index = indexCluster(loadSnapshot(JSON.stringify(toList(objects)), 's').snapshot!);
  const events = new EventLog(new FakeClock(0));
  const ctx = { index, instanceTypes: types, events, policyFor: () => policy } as unknown as MethodContext;
  const candidate = (i: number) => toCandidate(index.stateNodes[i], 'p', types);
  return { ctx, candidate, events };
}

describe('Balanced consolidation', () => {
  it('approves deleting a lightly loaded node: 25% of the cost for 2/20 of the disruption → score 2.5', () => {
    const { ctx, candidate, events } = setup([1, 5, 5, 5]);
    const [s] = balancedScores(ctx, [candidate(0)], { kind: 'delete' });
    expect(s.savingsShare).toBeCloseTo(0.25, 10);
    expect(s.disruptionShare).toBeCloseTo(2 / 20, 10);
    expect(s.score).toBeCloseTo(2.5, 10);
    expect(balancedApproves(ctx, [candidate(0)], { kind: 'delete' })).toBe(true);
    const words = 'score 2.50 >= threshold 0.50 (k: 2, savings 25.0%, disruption 10.0%)';
    expect(events.list({ reason: 'ConsolidationApproved' }).map((e) => [e.object.kind, e.message])).toEqual([
      ['Node', words],
      ['NodeClaim', words],
    ]);
  });
  it('records a multi-node approval on the NodePool, not on each node', () => {
    const { ctx, candidate, events } = setup([1, 1, 5, 5]);
    const batch = [candidate(0), candidate(1)];
    expect(balancedApproves(ctx, batch, { kind: 'delete' })).toBe(true);
    expect(events.list({ reason: 'ConsolidationApproved' })).toEqual([]);
    announceMultiNode(ctx, batch, { kind: 'delete' });
    expect(events.list({ reason: 'ConsolidationApproved' }).map((e) => [e.object.kind, e.object.name])).toEqual([
      ['NodePool', 'p'],
    ]);
  });
  it('rejects deleting the busiest node: 25% of the cost for 10/16 of the disruption → score 0.4', () => {
    const { ctx, candidate, events } = setup([9, 1, 1, 1]);
    const [s] = balancedScores(ctx, [candidate(0)], { kind: 'delete' });
    expect(s.score).toBeCloseTo(0.25 / (10 / 16), 10);
    expect(balancedApproves(ctx, [candidate(0)], { kind: 'delete' })).toBe(false);
    // Karpenter counts a rejection in metrics only.
    expect(events.list({})).toEqual([]);
  });
  it('a replacement that costs as much saves nothing: score 0', () => {
    const { ctx, candidate } = setup([1, 1]);
    const price = candidate(0).ref.price;
    const [s] = balancedScores(ctx, [candidate(0)], {
      kind: 'replace',
      replacement: { nodePool: 'p', requirements: [], instanceTypes: ['m5.xlarge'], price },
    });
    expect(s.score).toBe(0);
  });
  it('pools that are not Balanced always approve', () => {
    const { ctx, candidate } = setup([9, 1, 1, 1], { consolidationPolicy: 'WhenEmptyOrUnderutilized' } as PolicySpec);
    expect(balancedScores(ctx, [candidate(0)], { kind: 'delete' })).toEqual([]);
    expect(balancedApproves(ctx, [candidate(0)], { kind: 'delete' })).toBe(true);
  });
});
