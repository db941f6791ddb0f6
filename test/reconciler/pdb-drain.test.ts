// SPDX-License-Identifier: Apache-2.0
// Draining through a PodDisruptionBudget (KARPENTER.md#eviction-queue, eviction queue): evictions go through the
// Eviction API; while the PDB allows 0 disruptions the API answers 429, the node records
// FailedDraining, and the pod is retried until the recreated replica is Running elsewhere. The PDB
// is never violated.
import { describe, expect, it } from 'vitest';
import type { Pod, PodDisruptionBudget } from '../../src/core/cluster/types.js';
import { makePdb } from '../support/cluster-builder.js';
import { Scenario, policies, pool, replicaSet } from './scenario.js';

const ready = (p: Pod) =>
  !p.metadata.deletionTimestamp &&
  p.status?.phase === 'Running' &&
  p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

describe('PDB-guarded drain', () => {
  it(
    'maxUnavailable 1: the second eviction gets 429 until the first pod is Running elsewhere; ' +
      'never fewer than 3 of 4 Ready',
    async () => {
      const s = new Scenario(
        // 1.5 CPU pods on 4-vCPU nodes: two per node, two nodes.
        [
          pool('default', ['m5.xlarge']),
          replicaSet('web', 4, { cpu: '1500m' }),
          makePdb('web', { matchLabels: { app: 'web' } }, { maxUnavailable: 1 }),
        ],
        policies('policy p for nodepool default {\n  consolidate never\n  budget 1 for Drifted\n}\n'),
      );
      expect(await s.until(async () => (await s.pods()).filter(ready).length === 4, 15 * 60_000)).toBe(true);
      await s.tick();
      const pdb = (await s.rt.cluster.get<PodDisruptionBudget>({
        kind: 'PodDisruptionBudget',
        name: 'web',
        namespace: 'default',
      }))!;
      expect(pdb.status?.disruptionsAllowed).toBe(1);
      const original = new Map((await s.pods()).map((p) => [p.metadata.name, p.spec.nodeName!]));
      const nodes = new Set(original.values());
      expect(nodes.size).toBe(2);
      for (const n of nodes) expect([...original.values()].filter((x) => x === n)).toHaveLength(2);

      await s.rt.cluster.patch(
        { kind: 'NodePool', name: 'default' },
        { spec: { template: { metadata: { labels: { rev: '2' } } } } },
      );
      let minReady = 4;
      const done = await s.until(
        async () => {
          const names = new Set((await s.nodes()).map((n) => n.metadata.name));
          return [...nodes].every((n) => !names.has(n)) && (await s.pods()).filter(ready).length === 4;
        },
        2 * 60 * 60_000,
        10_000,
        async () => {
          const n = (await s.pods()).filter(ready).length;
          minReady = Math.min(minReady, n);
          expect(n, `Ready web pods at ${new Date(s.clock.now()).toISOString()}`).toBeGreaterThanOrEqual(3);
        },
      );
      expect(done).toBe(true);
      expect(minReady).toBe(3);

      // Every original pod was evicted (not force-deleted), each node's second eviction was refused at least once.
      const evicted = s.rt.events.list({ reason: 'Evicted' });
      expect(evicted.map((e) => e.object.name).sort()).toEqual([...original.keys()].sort());
      expect(evicted.every((e) => e.message === 'Evicted pod: Drifted')).toBe(true);
      expect(s.rt.events.list({ reason: 'Disrupted' })).toEqual([]);
      // Each node recorded FailedDraining. Karpenter keys it on the node's name alone: the drain's own
      // event (`N pods are waiting to be evicted`) opens the window, and a 429 within it is a repeat.
      const failed = s.rt.events.list({ reason: 'FailedDraining', kind: 'Node' });
      expect(new Set(failed.map((e) => e.object.name))).toEqual(nodes);
      for (const e of failed) {
        expect(e.type).toBe('Warning');
        const pod = e.message.match(/^Failed to drain node, evicting pod violates a PDB \(Pod=default\/(.+)\)$/)?.[1];
        if (pod !== undefined) expect(original.get(pod)).toBe(e.object.name);
        else expect(e.message).toMatch(/^Failed to drain node, \d+ pods are waiting to be evicted$/);
      }
      expect(s.rt.metrics.value('karpenter_pods_eviction_requests_total', { code: '429' })).toBeGreaterThanOrEqual(2);
      expect(s.rt.metrics.value('karpenter_pods_eviction_requests_total', { code: '200' })).toBe(4);

      // A refused pod is evicted only after a recreated replica started running: for each node,
      // between its first and second Evicted event a new replica got its startTime.
      const starts = (await s.pods())
        .filter((p) => !original.has(p.metadata.name))
        .map((p) => Date.parse(p.status!.startTime!));
      expect(starts).toHaveLength(4);
      for (const n of nodes) {
        const onNode = evicted
          .filter((e) => original.get(e.object.name) === n)
          .map((e) => e.at)
          .sort((a, b) => a - b);
        expect(onNode).toHaveLength(2);
        expect(onNode[1]).toBeGreaterThan(onNode[0]);
        expect(starts.some((t) => t > onNode[0] && t <= onNode[1])).toBe(true);
      }
    },
  );

  it('a PDB with 0 disruptions allowed blocks drift candidacy (no termination grace)', async () => {
    const s = new Scenario(
      [
        pool('default', ['m5.xlarge']),
        replicaSet('web', 2, { cpu: '1500m' }),
        makePdb('web', { matchLabels: { app: 'web' } }, { maxUnavailable: 0 }),
      ],
      policies('policy p for nodepool default {\n  consolidate never\n  budget 1 for Drifted\n}\n'),
    );
    expect(await s.until(async () => (await s.pods()).filter(ready).length === 2, 15 * 60_000)).toBe(true);
    const node = (await s.nodes())[0].metadata.name;
    await s.rt.cluster.patch(
      { kind: 'NodePool', name: 'default' },
      { spec: { template: { metadata: { labels: { rev: '2' } } } } },
    );
    await s.until(() => false, 30 * 60_000);
    expect(s.history.some((h) => h.disruption.started)).toBe(false);
    const b = s.history.at(-1)!.disruption.evaluation.nodes[node].blocked.find((x) => x.code === 'PDBBlocked');
    expect(b?.message).toBe('pdb prevents pod evictions (PodDisruptionBudget=[default/web])');
    expect(s.rt.events.list({ reason: 'Evicted' })).toEqual([]);
  });
});
