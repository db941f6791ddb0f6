// SPDX-License-Identifier: Apache-2.0
// Interruption (KARPENTER.md#interruption; AWS provider): a spot interruption notice deletes the NodeClaim at
// once — forceful, no budgets — and kpol pre-launches the replacement capacity in the same pass
// rather than waiting for the evicted pods to go pending. The pods end up Running again.
import { describe, expect, it } from 'vitest';
import type { NodeClaim } from '../../src/core/cluster/types.js';
import { Scenario, policies, pool, replicaSet } from './scenario.js';

describe('interruption', () => {
  it(
    'a spot interruption deletes the NodeClaim in the same pass despite budget 0, with a ' +
      'replacement launched at once',
    async () => {
      const s = new Scenario(
        [pool('default', ['m5.xlarge'], { capacityType: ['spot'] }), replicaSet('web', 2, { cpu: '1500m' })],
        policies('policy p for nodepool default {\n  consolidate never\n  budget 0\n}\n'),
      );
      expect(await s.until(async () => (await s.runningPods()).length === 2, 15 * 60_000)).toBe(true);
      const [victim] = await s.nodeClaims();
      expect(await s.nodeClaims()).toHaveLength(1);
      const providerID = victim.status!.providerID!;
      const node = victim.status!.nodeName!;
      const podUids = new Set((await s.runningPods()).map((p) => p.metadata.uid));

      const notice = s.rt.cloud.interrupt(providerID);
      expect(notice.deadline).toBe(s.clock.now() + 2 * 60_000);
      const r = await s.tick();
      expect(r.interrupted).toEqual([victim.metadata.name]);
      // Deleted in this very pass, although every reason's budget is 0.
      const deleted = await s.rt.cluster.get<NodeClaim>({ kind: 'NodeClaim', name: victim.metadata.name });
      expect(deleted?.metadata.deletionTimestamp).toBeDefined();
      expect(r.disruption.evaluation.nodePools.default.allowed).toMatchObject({
        Empty: 0,
        Drifted: 0,
        Underutilized: 0,
      });
      expect(r.disruption.started).toBeUndefined();
      // …and its replacement already exists, created for the interruption.
      const replacements = (await s.nodeClaims()).filter((nc) => nc.metadata.name !== victim.metadata.name);
      expect(replacements).toHaveLength(1);
      expect(replacements[0].metadata.annotations?.['kpol.dev/creation-reason']).toBe('interruption');
      expect(replacements[0].metadata.labels?.['karpenter.sh/nodepool']).toBe('default');

      expect(s.rt.events.list({ reason: 'SpotInterrupted', kind: 'NodeClaim' }).map((e) => e.message)).toEqual([
        'Spot interruption warning was triggered',
      ]);
      expect(
        s.rt.events.list({ reason: 'TerminatingOnInterruption', kind: 'NodeClaim' }).map((e) => e.message),
      ).toEqual(['Interruption triggered termination for the NodeClaim']);
      expect(s.rt.events.list({ reason: 'TerminatingOnInterruption', kind: 'Node' }).map((e) => e.object.name)).toEqual(
        [node],
      );

      // The pods are drained onto the replacement and run again; nothing orphaned, no voluntary disruption.
      expect(
        await s.until(async () => {
          const running = await s.runningPods();
          const repl = await s.rt.cluster.get<NodeClaim>({ kind: 'NodeClaim', name: replacements[0].metadata.name });
          return (
            running.length === 2 &&
            running.every((p) => p.spec.nodeName === repl?.status?.nodeName) &&
            (await s.nodeClaims()).length === 1
          );
        }, 5 * 60_000),
      ).toBe(true);
      // Back to Running before the 2-minute notice would even have run out.
      expect(s.clock.now()).toBeLessThanOrEqual(notice.deadline! + 10_000);
      expect((await s.runningPods()).some((p) => podUids.has(p.metadata.uid))).toBe(false);
      expect((await s.nodeClaims()).map((nc) => nc.metadata.name)).toEqual([replacements[0].metadata.name]);
      expect(s.rt.cloud.orphans(await s.nodeClaims())).toEqual([]);
      expect(s.history.some((h) => h.disruption.started)).toBe(false);
      // One replacement only: the provisioner did not launch a second one for the evicted pods.
      expect(s.rt.cloud.calls.filter((c) => c.op === 'create')).toHaveLength(2);
    },
  );

  it('a rebalance recommendation is advice only: event, no deletion', async () => {
    const s = new Scenario(
      [pool('default', ['m5.xlarge'], { capacityType: ['spot'] }), replicaSet('web', 1, { cpu: '1' })],
      policies('policy p for nodepool default {\n  consolidate never\n}\n'),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 1, 15 * 60_000)).toBe(true);
    const [nc] = await s.nodeClaims();
    s.rt.cloud.interrupt(nc.status!.providerID!, 'RebalanceRecommendation');
    await s.until(() => false, 10 * 60_000);
    expect(s.history.flatMap((h) => h.interrupted)).toEqual([]);
    expect((await s.nodeClaims()).map((x) => [x.metadata.name, x.metadata.deletionTimestamp])).toEqual([
      [nc.metadata.name, undefined],
    ]);
    expect(s.rt.events.list({ reason: 'SpotRebalanceRecommendation', kind: 'NodeClaim' })).toHaveLength(1);
  });
});
