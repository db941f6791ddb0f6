// SPDX-License-Identifier: Apache-2.0
// Govern mode and cluster/selector budgets (issue 15): Karpenter budgets per NodePool only, so each
// tick kpol splits a scope's room into per-pool budgets. Judged from what Karpenter would read in
// the written NodePools: the Drifted allowances it would compute never add up to more than the
// scope's room, and without the cluster budget they do (the contrast that makes the test mean
// something).
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { KubeObject, NodePool } from '../../src/core/cluster/types.js';
import { Governor } from '../../src/control/govern/governor.js';
import { splitRoom } from '../../src/control/govern/scope-shares.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { createLogger } from '../../src/core/observe/logger.js';
import { RecordingClient } from '../deploy/api-inventory.js';
import { makeNodeClaimAndNode, makeNodePool, makePod } from '../support/cluster-builder.js';

const T0 = Date.parse('2026-08-21T10:00:00Z');
const POOLS = ['web', 'api', 'batch'];
const POLICIES = (cluster: string) =>
  `${cluster}\npolicy fleet for nodepool web, api, batch {\n  consolidate never\n  budget 2 for Drifted\n}\n`;

/** Three drifted nodes per pool; batch's third already deleting (disrupting). */
function objects(): KubeObject[] {
  const out: KubeObject[] = [];
  for (const pool of POOLS) {
    out.push(makeNodePool(pool, { budgets: [{ nodes: '10%' }] }));
    for (let i = 0; i < 3; i++) {
      const { nodeClaim, node } = makeNodeClaimAndNode(pool, i, {
        drifted: true,
        deleting: pool === 'batch' && i === 2,
      });
      out.push(nodeClaim, node, makePod(`${pool}-${i}`, node.metadata.name));
    }
  }
  return out;
}

/** Karpenter's Drifted allowance from the written budgets: the smallest active count, minus disrupting. */
function karpenterDrifted(np: NodePool, disrupting: number): number {
  const active = (np.spec.disruption?.budgets ?? []).filter(
    (b) => !b.schedule && (!b.reasons || b.reasons.includes('Drifted')),
  );
  return Math.max(Math.min(...active.map((b) => Number(b.nodes))) - disrupting, 0);
}

const decisions: Record<string, unknown> = {};

async function governOnce(text: string): Promise<Record<string, number>> {
  const clock = new FakeClock(T0);
  const cluster = new MemoryCluster(clock, objects());
  const governor = new Governor({
    client: new RecordingClient(cluster),
    clock,
    logger: createLogger({ clock, sink: () => {} }),
    failClosedAfterMs: 120_000,
    dryRun: false,
  });
  const loaded = loadPolicies([{ fileName: 'fleet.kpol', text }]);
  expect(loaded.ok).toBe(true);
  governor.policies = loaded.policies;
  await governor.tick();
  const out: Record<string, number> = {};
  for (const pool of POOLS) {
    const np = (await cluster.get<NodePool>({ kind: 'NodePool', name: pool }))!;
    out[pool] = karpenterDrifted(np, pool === 'batch' ? 1 : 0);
    decisions[pool] = JSON.parse(np.metadata.annotations?.['kpol.dev/decision'] ?? '{}').allowed?.Drifted;
  }
  return out;
}

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

describe('govern mode: cluster budgets as per-pool budgets', () => {
  it('splits the room of `cluster budget 2` (1 left: batch has one disrupting): Karpenter may start 1', async () => {
    const allowed = await governOnce(POLICIES('cluster budget 2 for Drifted'));
    expect(sum(allowed)).toBe(1);
    // Round robin in pool-name order: api first.
    expect(allowed).toEqual({ api: 1, batch: 0, web: 0 });
    // The decision annotation (and so the status page) says what Karpenter may start, not the pool's own 2.
    expect(decisions).toEqual({ api: 1, batch: 0, web: 0 });
  });

  it('without it, each pool is governed by its own budget only (2 + 2 + 1)', async () => {
    expect(await governOnce(POLICIES(''))).toEqual({ web: 2, api: 2, batch: 1 });
  });

  it('a full scope writes a share of 0 for every pool', async () => {
    expect(sum(await governOnce(POLICIES('cluster budget 1 for Drifted')))).toBe(0);
  });
});

describe('splitRoom', () => {
  it.each([
    { room: 3, pools: ['a', 'b'], caps: { a: null, b: null }, want: { a: 2, b: 1 } },
    { room: 3, pools: ['a', 'b'], caps: { a: 1, b: null }, want: { a: 1, b: 2 } },
    { room: 5, pools: ['a', 'b'], caps: { a: 1, b: 1 }, want: { a: 1, b: 1 } },
    { room: 0, pools: ['a', 'b'], caps: { a: null, b: null }, want: { a: 0, b: 0 } },
    { room: 2, pools: [], caps: {}, want: {} },
  ])('room $room over $pools with caps $caps', ({ room, pools, caps, want }) => {
    const got = splitRoom(room, pools, (p) => (caps as Record<string, number | null>)[p]);
    expect(Object.fromEntries(got)).toEqual(want);
    expect([...got.values()].reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(room);
  });
});
