// SPDX-License-Identifier: Apache-2.0
// terminationGracePeriod end to end (KARPENTER.md#force-delete "TGP formula"): NodeClaim TGP 5 m, deleted at
// 12:00:00, so T = 12:05:00. Pods that PDBs or do-not-disrupt hold back are deleted so that
// they are gone by T, each at T − its own grace period.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/core/cluster/types.js';
import { makePdb, makePod } from '../support/cluster-builder.js';
import { launchMachine, Scenario } from './harness.js';

const at = (hms: string): number => Date.parse(`2026-08-20T${hms}Z`);
const grace = (p: Pod, g: number): Pod => ({ ...p, spec: { ...p.spec, terminationGracePeriodSeconds: g } });
const disrupted = (T: string, s: number, g: number): string =>
  `Deleting the pod to accommodate the terminationTime 2026-08-20 ${T} +0000 UTC of the ` +
  `node. The pod was granted ${s} seconds of grace-period of its ${g} ` +
  `terminationGracePeriodSeconds. This bypasses the PDB of the pod and the do-not-disrupt ` +
  `annotation.`;

describe('terminationGracePeriod', () => {
  it(
    'forces each held-back pod at T − g (strictly after), grants the seconds left, and every ' + 'pod is gone by T',
    async () => {
      const s = new Scenario();
      const [m] = await s.start(
        (c) => Promise.all([launchMachine(c, 'default', 0, { terminationGracePeriod: '5m' })]),
        ([m]) => {
          const n = m.node.metadata.name;
          const guarded = { labels: { app: 'guarded' } };
          return [
            grace(makePod('db-1', n, { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }), 30),
            grace(makePod('big-1', n), 600), // g > TGP: forced as soon as draining starts
            grace(makePod('guarded-300', n, guarded), 300), // g = TGP: not at T − g itself, 1 tick later
            grace(makePod('guarded-0', n, guarded), 0), // only after T, with 1 s
            makePdb('guarded', { matchLabels: { app: 'guarded' } }, { maxUnavailable: 0 }),
          ];
        },
      );
      await s.deleteObject('NodeClaim', m.nodeClaim.metadata.name);
      await s.tick(); // 12:00:00 = T − 300 s exactly
      expect(
        (await s.nodeClaim(m.nodeClaim.metadata.name))!.metadata.annotations?.[
          'karpenter.sh/nodeclaim-termination-timestamp'
        ],
      ).toBe('2026-08-20T12:05:00Z');
      const deletedAt = async (name: string) => (await s.pod(name))?.metadata.deletionTimestamp;
      expect(await deletedAt('big-1')).toBe('2026-08-20T12:05:00Z');
      expect(await deletedAt('guarded-300')).toBeUndefined();
      expect(s.counter('karpenter_pods_eviction_requests_total', { code: '429' })).toBe(2); // both guarded pods tried

      s.clock.advance(100);
      await s.tick();
      expect(await deletedAt('guarded-300')).toBe('2026-08-20T12:04:59Z'); // 12:00:00.1 + 299 s

      await s.runUntil(async () => (await deletedAt('db-1')) !== undefined);
      expect(s.clock.now()).toBe(at('12:04:30.100')); // at 12:04:30 exactly (T − 30 s) it was still waited for
      expect(await deletedAt('db-1')).toBe('2026-08-20T12:04:59Z');

      await s.runUntil(async () => (await deletedAt('guarded-0')) !== undefined);
      expect(s.clock.now()).toBe(at('12:05:00.100'));
      expect(await deletedAt('guarded-0')).toBe('2026-08-20T12:05:01Z'); // after T every pod gets 1 s

      expect(s.events.list({ reason: 'Disrupted' }).map((e) => [e.object.name, e.message])).toEqual([
        ['big-1', disrupted('12:05:00', 300, 600)],
        ['guarded-300', disrupted('12:05:00', 299, 300)],
        ['db-1', disrupted('12:05:00', 29, 30)],
        ['guarded-0', disrupted('12:05:00', 1, 0)],
      ]);
      expect(s.messages('Evicted')).toEqual([]);
      await s.runUntil(async () => (await s.node(m.node.metadata.name)) === undefined);
      // last pod gone 12:05:01 → Drained (MinDrainTime long over) → instance 20 s
      expect(s.clock.now()).toBe(at('12:05:21'));
    },
  );

  it('a pod already terminating past T is forced at once; one finishing by T is left alone', async () => {
    const s = new Scenario();
    const [m] = await s.start(
      (c) => Promise.all([launchMachine(c, 'default', 0, { terminationGracePeriod: '5m' })]),
      ([m]) => [
        grace(makePod('slow-1', m.node.metadata.name), 3600),
        grace(makePod('quick-1', m.node.metadata.name), 60),
      ],
    );
    await s.cluster.delete({ kind: 'Pod', name: 'slow-1', namespace: 'default' }); // kubelet would kill it at 13:00:00
    await s.cluster.delete({ kind: 'Pod', name: 'quick-1', namespace: 'default' }); // at 12:01:00
    await s.deleteObject('NodeClaim', m.nodeClaim.metadata.name);
    await s.tick();
    expect((await s.pod('slow-1'))!.metadata.deletionTimestamp).toBe('2026-08-20T12:05:00Z');
    expect((await s.pod('quick-1'))!.metadata.deletionTimestamp).toBe('2026-08-20T12:01:00Z');
    expect(s.events.list({ reason: 'Disrupted' }).map((e) => e.object.name)).toEqual(['slow-1']);
  });

  it('without a TGP a do-not-disrupt pod blocks the drain until the annotation goes', async () => {
    const s = new Scenario();
    const [m] = await s.start(
      (c) => Promise.all([launchMachine(c, 'default', 0)]),
      ([m]) => [makePod('db-1', m.node.metadata.name, { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })],
    );
    await s.deleteObject('NodeClaim', m.nodeClaim.metadata.name);
    await s.tick();
    await s.runFor(30 * 60_000, 1_000);
    expect((await s.pod('db-1'))!.metadata.deletionTimestamp).toBeUndefined();
    expect(await s.node(m.node.metadata.name)).toBeDefined();
    expect(s.messages('FailedDraining')).toContain('Failed to drain node, 1 pods are waiting to be evicted');
    await s.cluster.patch(
      { kind: 'Pod', name: 'db-1', namespace: 'default' },
      { metadata: { annotations: { 'karpenter.sh/do-not-disrupt': null } } },
    );
    const removedAt = s.clock.now();
    await s.runUntil(async () => (await s.pod('db-1'))?.metadata.deletionTimestamp !== undefined, 100);
    expect(s.clock.now() - removedAt).toBeLessThanOrEqual(10_000); // the backoff is capped at 10 s
    expect(s.messages('Evicted')).toEqual(['Evicted pod: Forceful Termination']);
  });

  it('a force-deleted pod that never goes away stops blocking 1 min after its deletionTimestamp', async () => {
    const s = new Scenario();
    const [m] = await s.start(
      (c) => Promise.all([launchMachine(c, 'default', 0, { terminationGracePeriod: '1m' })]),
      ([m]) => {
        const p = grace(
          makePod('stuck-1', m.node.metadata.name, { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
          30,
        );
        return [{ ...p, metadata: { ...p.metadata, finalizers: ['example.com/never'] } }];
      },
    );
    await s.deleteObject('NodeClaim', m.nodeClaim.metadata.name);
    await s.runUntil(async () => (await s.pod('stuck-1'))?.metadata.deletionTimestamp !== undefined);
    expect(s.clock.now()).toBe(at('12:00:30.100'));
    expect((await s.pod('stuck-1'))!.metadata.deletionTimestamp).toBe('2026-08-20T12:00:59Z');
    // The kubelet's final DELETE (grace 0) at 12:00:59 moves deletionTimestamp back to the request
    // instant, as the API server does; the finalizer keeps the pod.
    await s.runFor(29_000); // to 12:00:59.1
    expect((await s.pod('stuck-1'))!.metadata.deletionTimestamp).toBe('2026-08-20T12:00:30Z');
    await s.runUntil(async () => (await s.node(m.node.metadata.name)) === undefined);
    // Stuck once more than 60 s past 12:00:30 → drained at 12:01:30.1 → instance gone 20 s later.
    expect(s.clock.now()).toBe(at('12:01:50.100'));
    expect(await s.pod('stuck-1')).toBeDefined();
  });
});
