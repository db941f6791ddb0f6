// SPDX-License-Identifier: Apache-2.0
// Expiration (KARPENTER.md#expiration): forceful by default — the NodeClaim is deleted at exactly
// creationTimestamp + expireAfter, ignoring budgets and do-not-disrupt, with no replacement
// launched first. kpol's `expire after D gracefully` turns it into the budgeted `Expired`
// method instead: one node at a time under `budget 1 for Expired`, replacement first, oldest
// first, held by do-not-disrupt like drift.
import { describe, expect, it } from 'vitest';
import type { NodeClaim, Pod } from '../../src/core/cluster/types.js';
import { Scenario, policies, pool, replicaSet } from './scenario.js';

const DND = { 'karpenter.sh/do-not-disrupt': 'true' };
const isTrue = (nc: NodeClaim, type: string) =>
  nc.status?.conditions?.some((c) => c.type === type && c.status === 'True') === true;

describe('forceful expiration', () => {
  it(
    'deletes each NodeClaim at exactly creation + 30m, despite budget 0 and a do-not-disrupt ' +
      'pod, without a replacement first',
    async () => {
      const s = new Scenario(
        [
          pool('default', ['m5.xlarge']),
          replicaSet('held', 1, { cpu: '3', annotations: DND }),
          replicaSet('web', 1, { cpu: '3' }),
        ],
        policies(
          'policy p for nodepool default {\n  consolidate never\n  budget 0\n  expire after 30m\n  ' +
            'termination grace 5m\n}\n',
        ),
      );
      expect(await s.until(async () => (await s.runningPods()).length === 2, 15 * 60_000)).toBe(true);
      const original = await s.nodeClaims();
      expect(original).toHaveLength(2);
      const created = new Map(original.map((nc) => [nc.metadata.name, Date.parse(nc.metadata.creationTimestamp!)]));
      const deletedAt = new Map<string, number>();
      const expiredBy = new Map<string, number>();
      let claimsAtExpiry = -1;
      await s.until(
        () => deletedAt.size === original.length,
        40 * 60_000,
        10_000,
        async () => {
          const at = s.clock.now() - 10_000;
          for (const name of s.history.at(-1)!.expired) {
            expiredBy.set(name, at);
            if (claimsAtExpiry < 0)
              claimsAtExpiry = (await s.nodeClaims()).filter((nc) => !created.has(nc.metadata.name)).length;
          }
          for (const nc of await s.nodeClaims()) {
            if (created.has(nc.metadata.name) && nc.metadata.deletionTimestamp && !deletedAt.has(nc.metadata.name))
              deletedAt.set(nc.metadata.name, Date.parse(nc.metadata.deletionTimestamp));
          }
        },
      );
      for (const [name, c] of created) {
        expect(deletedAt.get(name), name).toBe(c + 30 * 60_000);
        expect(expiredBy.get(name), name).toBe(c + 30 * 60_000);
      }
      // No replacement was launched ahead of the deletion (Karpenter: pods go pending).
      expect(claimsAtExpiry).toBe(0);
      // Budgets and the voluntary methods had no part in it.
      expect(s.history.some((h) => h.disruption.started)).toBe(false);
      expect(s.history.at(-1)!.disruption.evaluation.nodePools.default.budgets).toMatchObject({
        Empty: 0,
        Drifted: 0,
        Underutilized: 0,
      });
      expect(
        s.rt.metrics.value('karpenter_nodeclaims_disrupted_total', {
          reason: 'expired',
          nodepool: 'default',
          capacity_type: 'on-demand',
          consolidation_policy: '',
          termination_mode: 'eventual',
        }),
      ).toBe(2);

      // The do-not-disrupt pod is waited for until T − 30 s (T = deletion + 5m), then force-deleted;
      // both pods run again.
      expect(
        await s.until(
          async () =>
            (await s.runningPods()).length === 2 &&
            (await s.nodeClaims()).every((nc) => !created.has(nc.metadata.name)),
          20 * 60_000,
        ),
      ).toBe(true);
      const forced = s.rt.events.list({ reason: 'Disrupted' });
      expect(forced.map((e) => e.object.name.replace(/-[^-]+$/, ''))).toEqual(['held']);
      expect(s.rt.cloud.orphans(await s.nodeClaims())).toEqual([]);
    },
  );
});

describe('graceful expiration (kpol)', () => {
  it(
    'expire after 30m gracefully + budget 1 for Expired: one node at a time, replacement first,' +
      ' do-not-disrupt holds',
    async () => {
      const s = new Scenario(
        [
          pool('default', ['m5.xlarge']),
          ...['a', 'b', 'c'].map((n) => replicaSet(n, 1, { cpu: '3' })),
          replicaSet('d', 1, { cpu: '3', annotations: DND }),
        ],
        policies(
          'policy p for nodepool default {\n  consolidate never\n  expire after 30m gracefully\n  ' +
            'budget 1 for Expired\n}\n',
        ),
      );
      expect(await s.until(async () => (await s.runningPods()).length === 4, 15 * 60_000)).toBe(true);
      const original = await s.nodeClaims();
      const created = new Map(original.map((nc) => [nc.metadata.name, Date.parse(nc.metadata.creationTimestamp!)]));
      const firstExpiry = Math.min(...created.values()) + 30 * 60_000;
      const podNode = async (app: string) =>
        (await s.pods()).find((p: Pod) => p.metadata.labels?.app === app)!.spec.nodeName!;
      const heldNode = await podNode('d');
      const heldClaim = original.find((nc) => nc.status?.nodeName === heldNode)!.metadata.name;
      const others = original.map((nc) => nc.metadata.name).filter((n) => n !== heldClaim);

      const startedAt: number[] = [];
      const done = await s.until(
        async () => {
          const names = new Set((await s.nodeClaims()).map((nc) => nc.metadata.name));
          return others.every((n) => !names.has(n)) && (await s.runningPods()).length === 4;
        },
        60 * 60_000,
        10_000,
        async () => {
          const at = s.clock.now() - 10_000;
          const h = s.history.at(-1)!;
          expect(h.expired).toEqual([]); // the forceful controller stands aside
          if (h.disruption.started) startedAt.push(at);
          let inFlight = 0;
          const marked = new Set(
            [...s.rt.state.commands.values()].flatMap((c) => c.candidates.map((x) => x.nodeClaim)),
          );
          for (const nc of await s.nodeClaims()) {
            if (!created.has(nc.metadata.name) || isTrue(nc, 'InstanceTerminating')) continue;
            if (marked.has(nc.metadata.name) || nc.metadata.deletionTimestamp) inFlight++;
          }
          expect(inFlight).toBeLessThanOrEqual(1);
        },
      );
      expect(done).toBe(true);
      const cmds = s.history.map((h) => h.disruption.started).filter(Boolean);
      expect(cmds.map((c) => [c!.method, c!.reason])).toEqual([
        ['Expiration', 'Expired'],
        ['Expiration', 'Expired'],
        ['Expiration', 'Expired'],
      ]);
      expect(cmds.map((c) => c!.candidates[0].nodeClaim).sort()).toEqual([...others].sort());
      for (const c of cmds) expect(c!.replacements).toHaveLength(1);
      // Not before expiry; sequential.
      expect(startedAt[0]).toBe(firstExpiry);
      // The do-not-disrupt node stays, blocked for Expired.
      expect((await s.nodeClaims()).some((nc) => nc.metadata.name === heldClaim)).toBe(true);
      const blocked = s.history.at(-1)!.disruption.evaluation.nodes[heldNode].blocked;
      expect(blocked.map((b) => b.code)).toContain('DoNotDisruptPod');
      expect(s.history.at(-1)!.disruption.evaluation.nodePools.default.budgets.Expired).toBe(1);
    },
  );
});
