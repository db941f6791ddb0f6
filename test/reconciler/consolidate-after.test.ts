// SPDX-License-Identifier: Apache-2.0
// consolidateAfter (KARPENTER.md#consolidate-after, KARPENTER.md#scheduling-simulation): a node is consolidatable once
// now − (lastPodEventTime, else Initialized) ≥ consolidateAfter; before that it is blocked
// NotConsolidatable for Empty and Underutilized. Since v1.14 the window also protects
// *destinations*: a consolidation simulation may not place a candidate's pods on a node whose
// own window is still open.
import { describe, expect, it } from 'vitest';
import type { NodeClaim, Pod } from '../../src/core/cluster/types.js';
import type { ReconcileResult } from '../../src/control/reconciler/disruption-controller.js';
import { Scenario, policies, pool, replicaSet } from './scenario.js';

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** Ticks every `step` ms for `ms`, returning each tick's start time with its disruption result. */
async function run(s: Scenario, ms: number, step = 10_000): Promise<{ at: number; r: ReconcileResult }[]> {
  const out: { at: number; r: ReconcileResult }[] = [];
  const end = s.clock.now() + ms;
  while (s.clock.now() < end) {
    const at = s.clock.now();
    out.push({ at, r: (await s.tick(step)).disruption });
  }
  return out;
}

const claimOfNode = async (s: Scenario, node: string) =>
  (await s.nodeClaims()).find((nc) => nc.status?.nodeName === node)!;
const nodeOfApp = async (s: Scenario, app: string) =>
  (await s.pods()).find((p: Pod) => p.metadata.labels?.app === app && !p.metadata.deletionTimestamp)?.spec.nodeName;

describe('consolidateAfter', () => {
  it('on candidates: an emptied node is blocked NotConsolidatable until exactly lastPodEventTime + 5m', async () => {
    const s = new Scenario(
      [pool('default', ['m5.xlarge']), replicaSet('a', 1, { cpu: '3' }), replicaSet('b', 1, { cpu: '3' })],
      policies('policy p for nodepool default {\n  consolidate when empty after 5m\n}\n'),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 2, 15 * 60_000)).toBe(true);
    await run(s, 10 * 60_000); // both windows long past; nothing to do (both nodes busy)
    expect(s.history.some((h) => h.disruption.started || h.disruption.waitingValidation)).toBe(false);
    const node = (await nodeOfApp(s, 'b'))!;

    await s.rt.cluster.patch({ kind: 'ReplicaSet', name: 'b', namespace: 'default' }, { spec: { replicas: 0 } });
    const t1 = s.clock.now();
    const ticks = await run(s, 10_000);
    // The pod starting to terminate is the node's last pod event, stamped at that tick.
    expect((await claimOfNode(s, node)).status?.lastPodEventTime).toBe(iso(t1));
    ticks.push(...(await run(s, 6 * 60_000)));
    for (const { at, r } of ticks) {
      if (at < t1 + 5 * 60_000) {
        const blocked = r.evaluation.nodes[node].blocked;
        expect(r.evaluation.nodes[node].reasons).toEqual([]);
        expect(blocked.find((b) => b.code === 'NotConsolidatable')?.message).toBe(
          `node is within its consolidateAfter window (consolidatable at ${iso(t1 + 5 * 60_000)})`,
        );
        expect(r.waitingValidation).toBeUndefined();
      } else if (at <= t1 + 5 * 60_000 + 10_000) {
        // Consolidatable from the boundary on (≥, not >), until the command marks it.
        expect(r.evaluation.nodes[node].reasons).toEqual(['Empty']);
      }
    }
    // The Emptiness command is computed at exactly t1 + 5m and acts after the 15 s validation.
    const first = ticks.find((t) => t.r.waitingValidation)!;
    expect(first.at).toBe(t1 + 5 * 60_000);
    expect(first.r.waitingValidation!.method).toBe('Emptiness');
    expect(first.r.waitingValidation!.candidates.map((c) => c.node)).toEqual([node]);
    const started = ticks.find((t) => t.r.started)!;
    expect(started.at).toBe(t1 + 5 * 60_000 + 20_000); // first 10 s tick ≥ 15 s later
  });

  it(
    "on destinations: a node with a recent pod event refuses a candidate's pods until its own " + 'window passes',
    async () => {
      // Layout (4-vCPU nodes, 3.92 allocatable): node X = {b 2 CPU, c 1.5 CPU}, node Y = {a 1 CPU}.
      // b is do-not-disrupt, so X itself is never a candidate — only a destination.
      const s = new Scenario(
        [
          pool('default', ['m5.xlarge']),
          replicaSet('b', 1, { cpu: '2', annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
          replicaSet('c', 1, { cpu: '1500m' }),
          replicaSet('a', 1, { cpu: '1' }),
        ],
        policies('policy p for nodepool default {\n  consolidate when empty or underutilized after 5m\n}\n'),
      );
      expect(await s.until(async () => (await s.runningPods()).length === 3, 15 * 60_000)).toBe(true);
      const x = (await nodeOfApp(s, 'b'))!;
      const y = (await nodeOfApp(s, 'a'))!;
      expect(await nodeOfApp(s, 'c')).toBe(x);
      expect(y).not.toBe(x);
      await run(s, 10 * 60_000);
      // Y is an Underutilized candidate, but a (1 CPU) does not fit next to b + c, and another
      // m5.xlarge is not cheaper: nothing to do.
      expect(s.history.at(-1)!.disruption.evaluation.nodes[y].reasons).toEqual(['Underutilized']);
      expect(s.history.some((h) => h.disruption.started || h.disruption.waitingValidation)).toBe(false);

      // c goes away: X now has room for a, but X just had a pod event.
      await s.rt.cluster.patch({ kind: 'ReplicaSet', name: 'c', namespace: 'default' }, { spec: { replicas: 0 } });
      const t1 = s.clock.now();
      const ticks = await run(s, 10_000);
      expect((await claimOfNode(s, x)).status?.lastPodEventTime).toBe(iso(t1));
      ticks.push(...(await run(s, 7 * 60_000)));
      for (const { at, r } of ticks) {
        if (at >= t1 + 5 * 60_000) break;
        // Y stays a candidate throughout; only the destination rule keeps a off X.
        expect(r.evaluation.nodes[y].reasons).toEqual(['Underutilized']);
        expect(r.waitingValidation).toBeUndefined();
        expect(r.started).toBeUndefined();
      }
      const first = ticks.find((t) => t.r.waitingValidation)!;
      expect(first.at).toBe(t1 + 5 * 60_000);
      expect(first.r.waitingValidation!.method).toBe('SingleNodeConsolidation');
      expect(first.r.waitingValidation!.candidates.map((c) => c.node)).toEqual([y]);
      expect(first.r.waitingValidation!.replacements).toEqual([]);
      // Y is deleted and a runs on X.
      expect(
        await s.until(
          async () => !(await s.nodes()).some((n) => n.metadata.name === y) && (await s.runningPods()).length === 2,
          10 * 60_000,
        ),
      ).toBe(true);
      expect(await nodeOfApp(s, 'a')).toBe(x);
      expect((await s.nodeClaims()).map((nc: NodeClaim) => nc.status?.nodeName)).toEqual([x]);
    },
  );
});
