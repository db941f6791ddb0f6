// SPDX-License-Identifier: Apache-2.0
// `kpol simulate` over a week with a cluster budget (issue 15): three NodePools drift every day
// (each pool's template changes at 02:00, 02:20 and 02:40), each pool's own budget would let 3 of
// its nodes go at once, and `cluster budget 2 for Drifted` holds the whole fleet to 2 nodes in
// flight at every tick of the 7 days, while still replacing every drifted node each day. A
// selector budget keeps the batch slice of the policy to 1.
import { describe, expect, it } from 'vitest';
import type { NodeClaim } from '../../src/core/cluster/types.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { simulate } from '../../src/edge/simulate/simulated-run.js';
import { pool, replicaSet } from '../reconciler/scenario.js';

const T0 = Date.parse('2026-11-23T00:00:00Z'); // a Monday
const DAY = 24 * 3_600_000;
const POOLS = ['web', 'api', 'batch'];
const POOL_LABEL = 'karpenter.sh/nodepool';

const POLICY = `cluster budget 2 for Drifted

policy fleet for nodepool web, api, batch {
  consolidate never
  budget 3 for Drifted
  budget 1 for Drifted on nodes where karpenter.sh/nodepool = batch
}
`;

const isTrue = (nc: NodeClaim, type: string) =>
  nc.status?.conditions?.some((c) => c.type === type && c.status === 'True') === true;

describe('simulate: a cluster budget over a week of daily drift', () => {
  it('never has more than 2 nodes in flight across the three pools, nor 2 of batch', async () => {
    const loaded = loadPolicies([{ fileName: 'fleet.kpol', text: POLICY }]);
    expect(loaded.ok).toBe(true);
    let peak = 0;
    let peakBatch = 0;
    let ticks = 0;
    const timeline = await simulate({
      objects: [
        ...POOLS.map((p) => pool(p, ['m5.xlarge'])),
        // 3-CPU pods on 4-vCPU nodes: one pod per node, four nodes per pool.
        ...POOLS.map((p) => replicaSet(`w-${p}`, 4, { cpu: '3', nodeSelector: { [POOL_LABEL]: p } })),
      ],
      policies: loaded.policies,
      fromMs: T0,
      forMs: 7 * DAY,
      stepMs: 60_000,
      workload: POOLS.map((nodePool, i) => ({
        atMs: 2 * 3_600_000 + i * 20 * 60_000,
        everyMs: DAY,
        action: { drift: { nodePool } },
      })),
      onTick: async (rt) => {
        ticks++;
        const marked = new Set([...rt.state.commands.values()].flatMap((c) => c.candidates.map((x) => x.nodeClaim)));
        const inFlight = (await rt.cluster.list<NodeClaim>('NodeClaim')).filter(
          (nc) =>
            !isTrue(nc, 'InstanceTerminating') && (marked.has(nc.metadata.name) || !!nc.metadata.deletionTimestamp),
        );
        const batch = inFlight.filter((nc) => nc.metadata.labels?.[POOL_LABEL] === 'batch');
        peak = Math.max(peak, inFlight.length);
        peakBatch = Math.max(peakBatch, batch.length);
        if (inFlight.length > 2 || batch.length > 1)
          throw new Error(
            `${new Date(rt.clock.now()).toISOString()}: ${inFlight.length} in flight (${batch.length} of batch): ` +
              inFlight.map((nc) => `${nc.metadata.name}/${nc.metadata.labels?.[POOL_LABEL]}`).join(', '),
          );
      },
    });
    expect(ticks).toBe(7 * 24 * 60);
    // Every pool's 4 nodes are replaced every day: 7 × 12 drifts, all within the cluster budget.
    const drifts = timeline.disruptions.filter((d) => d.method === 'Drift');
    expect(drifts).toHaveLength(7 * 12);
    for (const p of POOLS) expect(drifts.filter((d) => d.nodePool === p)).toHaveLength(7 * 4);
    // The budget is used, not merely respected: at some tick 2 nodes were in flight at once.
    expect(peak).toBe(2);
    expect(peakBatch).toBe(1);
    // The report names the cluster budget as what held a pool with room of its own (held-budgets.ts).
    const scoped = timeline.held.filter((h) => h.cause === 'scope' && h.reason === 'Drifted');
    expect(scoped.map((h) => h.nodePool).sort()).toEqual(['api', 'batch', 'web']);
    expect(scoped[0]!.example).toMatch(/^cluster budget 2 for Drifted: 2 of 1[2-6] nodes disrupting, budget 2$/);
  }, 240_000);
});
