// SPDX-License-Identifier: Apache-2.0
// Budgets across several NodePools (KARPENTER.md#budget-counting): each pool's Drifted allowance is its own
// budget minus its own disrupting nodes, so two pools drifting at once each stay within their
// budget at every tick, independently of the other pool.
import { describe, expect, it } from 'vitest';
import type { NodeClaim } from '../../src/core/cluster/types.js';
import { Scenario, policies, pool, replicaSet } from './scenario.js';

const POOL_LABEL = 'karpenter.sh/nodepool';
const isTrue = (nc: NodeClaim, type: string) =>
  nc.status?.conditions?.some((c) => c.type === type && c.status === 'True') === true;

describe('budgets across several NodePools', () => {
  it('drifts two pools concurrently, each within its own Drifted budget at every tick', async () => {
    const s = new Scenario(
      [
        pool('a', ['m5.xlarge']),
        pool('b', ['m5.xlarge']),
        // 3 CPU pods on 4-vCPU nodes: one pod per node, four nodes per pool.
        replicaSet('wa', 4, { cpu: '3', nodeSelector: { [POOL_LABEL]: 'a' } }),
        replicaSet('wb', 4, { cpu: '3', nodeSelector: { [POOL_LABEL]: 'b' } }),
      ],
      policies(
        'policy pa for nodepool a {\n  consolidate never\n  budget 1 for Drifted\n}\n' +
          'policy pb for nodepool b {\n  consolidate never\n  budget 2 for Drifted\n}\n',
      ),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 8, 15 * 60_000)).toBe(true);
    const original = new Map(
      (await s.nodeClaims()).map((nc) => [nc.metadata.name, nc.metadata.labels?.[POOL_LABEL] ?? '']),
    );
    expect([...original.values()].filter((p) => p === 'a')).toHaveLength(4);
    expect([...original.values()].filter((p) => p === 'b')).toHaveLength(4);

    // Change both templates: every node of both pools drifts (static hash, KARPENTER.md#drift-detection).
    for (const name of ['a', 'b']) {
      await s.rt.cluster.patch(
        { kind: 'NodePool', name },
        { spec: { template: { metadata: { labels: { rev: '2' } } } } },
      );
    }

    const max = { a: 0, b: 0 } as Record<string, number>;
    const budget = { a: 1, b: 2 } as Record<string, number>;
    const done = await s.until(
      async () => {
        const ncs = await s.nodeClaims();
        return ncs.every((nc) => !original.has(nc.metadata.name)) && (await s.runningPods()).length === 8;
      },
      4 * 60 * 60_000,
      10_000,
      async () => {
        // In flight per pool, counted as Karpenter counts "disrupting" for the budget: original
        // nodes marked by a command or deleting, not yet InstanceTerminating.
        const marked = new Set([...s.rt.state.commands.values()].flatMap((c) => c.candidates.map((x) => x.nodeClaim)));
        const inFlight: Record<string, number> = { a: 0, b: 0 };
        for (const nc of await s.nodeClaims()) {
          const p = original.get(nc.metadata.name);
          if (p === undefined || isTrue(nc, 'InstanceTerminating')) continue;
          if (marked.has(nc.metadata.name) || nc.metadata.deletionTimestamp) inFlight[p]++;
        }
        for (const p of ['a', 'b']) {
          expect(inFlight[p], `pool ${p} at ${new Date(s.clock.now()).toISOString()}`).toBeLessThanOrEqual(budget[p]);
          max[p] = Math.max(max[p], inFlight[p]);
        }
      },
    );
    expect(done).toBe(true);
    // Each pool used its whole budget at some point: b's 2 is not capped by a's 1, nor a's 1 raised by b's 2.
    expect(max).toEqual({ a: 1, b: 2 });
    const drifts = s.history.map((h) => h.disruption.started).filter((c) => c?.method === 'Drift');
    expect(drifts.filter((c) => c!.candidates[0].nodePool === 'a')).toHaveLength(4);
    expect(drifts.filter((c) => c!.candidates[0].nodePool === 'b')).toHaveLength(4);
    for (const d of drifts) {
      expect(d!.candidates).toHaveLength(1);
      // Each replacement comes from the drifted node's own pool.
      expect(d!.replacements.map((r) => r.nodePool)).toEqual([d!.candidates[0].nodePool]);
    }
    // The replacements carry the new template (not drifted) and nothing was left behind.
    const ncs = await s.nodeClaims();
    expect(ncs).toHaveLength(8);
    for (const nc of ncs) expect(nc.metadata.labels?.rev).toBe('2');
    expect(s.rt.cloud.orphans(ncs)).toEqual([]);
  });

  it('publishes allowed disruptions per pool before subtraction, and consuming nodes per pool', async () => {
    const s = new Scenario(
      [
        pool('a', ['m5.xlarge']),
        pool('b', ['m5.xlarge']),
        replicaSet('wa', 2, { cpu: '3', nodeSelector: { [POOL_LABEL]: 'a' } }),
        replicaSet('wb', 2, { cpu: '3', nodeSelector: { [POOL_LABEL]: 'b' } }),
      ],
      policies(
        'policy pa for nodepool a {\n  consolidate never\n  budget 1 for Drifted\n}\n' +
          'policy pb for nodepool b {\n  consolidate never\n  budget 0 for Drifted\n}\n',
      ),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 4, 15 * 60_000)).toBe(true);
    for (const name of ['a', 'b'])
      await s.rt.cluster.patch(
        { kind: 'NodePool', name },
        { spec: { template: { metadata: { labels: { rev: '2' } } } } },
      );
    // Run until pool a's first drift command is in flight.
    expect(await s.until(() => s.rt.state.commands.size > 0, 5 * 60_000)).toBe(true);
    await s.tick();
    const m = s.rt.metrics;
    expect(m.value('karpenter_nodepools_allowed_disruptions', { nodepool: 'a', reason: 'Drifted' })).toBe(1);
    expect(m.value('karpenter_nodepools_nodes_consuming_budgets', { nodepool: 'a', reason: 'Drifted' })).toBe(1);
    expect(m.value('karpenter_nodepools_allowed_disruptions', { nodepool: 'b', reason: 'Drifted' })).toBe(0);
    expect(m.value('karpenter_nodepools_nodes_consuming_budgets', { nodepool: 'b', reason: 'Drifted' })).toBe(0);
    // Pool b (budget 0, nodes > 0) gets Karpenter's NodePool event; a does not.
    const blocked = s.rt.events.list({ reason: 'DisruptionBlocked', kind: 'NodePool' });
    expect(
      blocked.some(
        (e) =>
          e.object.name === 'b' &&
          e.message === 'No allowed disruptions for disruption reason Drifted due to blocking budget',
      ),
    ).toBe(true);
    expect(blocked.some((e) => e.object.name === 'a' && e.message.includes('Drifted'))).toBe(false);
    // Pool b never drifts a node while its budget is 0.
    await s.until(() => false, 30 * 60_000);
    const started = s.history.map((h) => h.disruption.started).filter(Boolean);
    expect(started.every((c) => c!.candidates.every((x) => x.nodePool === 'a'))).toBe(true);
    expect(started.length).toBe(2);
  });
});
