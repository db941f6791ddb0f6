// SPDX-License-Identifier: Apache-2.0
// Drain order and the eviction queue against the real Eviction API (MemoryCluster) and the
// real PDB status controller: tiers, PDB 429 with backoff, multiple PDBs, stale entries.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/core/cluster/types.js';
import { EvictionQueue } from '../../src/control/termination/eviction-queue.js';
import { makePdb, makePod } from '../support/cluster-builder.js';
import { launchMachine, Scenario, T0 } from './harness.js';

const ms = (n: number): number => T0 + n;
const withGrace = (p: Pod, g: number): Pod => ({ ...p, spec: { ...p.spec, terminationGracePeriodSeconds: g } });
const critical = (p: Pod, name: 'system-cluster-critical' | 'system-node-critical'): Pod => ({
  ...p,
  spec: { ...p.spec, priorityClassName: name },
});

describe('drain tiers', () => {
  it('evicts non-critical workloads, then daemons, then critical workloads, then critical daemons', async () => {
    const s = new Scenario();
    const [m] = await s.start(
      (c) => Promise.all([launchMachine(c, 'default', 0)]),
      ([m]) => {
        const n = m.node.metadata.name;
        return [
          withGrace(critical(makePod('cni-x', n, { owner: 'DaemonSet' }), 'system-node-critical'), 5),
          withGrace(critical(makePod('coredns-1', n), 'system-cluster-critical'), 5),
          withGrace(makePod('log-agent-x', n, { owner: 'DaemonSet' }), 5),
          withGrace(makePod('web-1', n), 5),
          withGrace(makePod('web-2', n), 10),
          makePod('static-x', n, { owner: 'Node' }), // mirror pods are never evicted
        ];
      },
    );
    await s.deleteObject('NodeClaim', m.nodeClaim.metadata.name);
    await s.runUntil(async () => (await s.node(m.node.metadata.name)) === undefined);
    expect(s.events.list({ reason: 'Evicted' }).map((e) => [e.object.name, e.at - T0])).toEqual([
      ['web-1', 0],
      ['web-2', 0],
      ['log-agent-x', 10_000], // after the slower tier-1 pod is gone
      ['coredns-1', 15_000],
      ['cni-x', 20_000],
    ]);
    expect((await s.pod('static-x'))?.metadata.deletionTimestamp).toBeUndefined();
  });
});

describe('eviction queue', () => {
  it(
    'a PDB that allows nothing: 429, FailedDraining, exponential backoff (100 ms doubling, 10 ' +
      's cap) until the PDB allows',
    async () => {
      const s = new Scenario();
      const [m, other] = await s.start(
        (c) => Promise.all([launchMachine(c, 'default', 0), launchMachine(c, 'default', 1)]),
        ([m, other]) => [
          makePod('web-1', m.node.metadata.name, { labels: { app: 'web' } }),
          makePod('web-2', other.node.metadata.name, { labels: { app: 'web' } }),
          makePdb('web', { matchLabels: { app: 'web' } }, { minAvailable: 2 }),
        ],
      );
      await s.deleteObject('NodeClaim', m.nodeClaim.metadata.name);
      const attempts = (): number => s.counter('karpenter_pods_eviction_requests_total', { code: '429' });
      await s.tick();
      expect(attempts()).toBe(1);
      expect(s.attempted('FailedDraining')).toContain(
        'Failed to drain node, evicting pod violates a PDB (Pod=default/web-1)',
      );
      // Karpenter keys FailedDraining on the node's name alone: the drain's own event came first, so
      // the refusal within its window is a repeat.
      expect(s.messages('FailedDraining')).toEqual(['Failed to drain node, 1 pods are waiting to be evicted']);
      expect(
        s.published
          .filter((e) => e.reason === 'FailedDraining')
          .every((e) => e.object.kind === 'Node' && e.object.name === m.node.metadata.name),
      ).toBe(true);

      const seen: number[] = [];
      let last = attempts();
      while (s.clock.now() < ms(40_000)) {
        s.clock.advance(100);
        await s.tick();
        if (attempts() !== last) seen.push(s.clock.now() - T0);
        last = attempts();
      }
      expect(seen).toEqual([100, 300, 700, 1_500, 3_100, 6_300, 12_700, 22_700, 32_700]);
      expect((await s.pod('web-1'))!.metadata.deletionTimestamp).toBeUndefined();

      // A third replica becomes Ready elsewhere: the PDB controller allows one disruption.
      await s.cluster.create(makePod('web-3', other.node.metadata.name, { labels: { app: 'web' } }));
      await s.runUntil(() => s.counter('karpenter_pods_eviction_requests_total', { code: '200' }) === 1);
      expect(s.clock.now()).toBe(ms(42_700)); // the next backoff slot (10 s cap)
      expect((await s.pod('web-1'))!.metadata.deletionTimestamp).toBeDefined();
    },
  );

  it('multiple PDBs: 500 with the API message, FailedDraining, retried', async () => {
    const s = new Scenario();
    const [m] = await s.start(
      (c) => Promise.all([launchMachine(c, 'default', 0)]),
      ([m]) => [
        makePod('web-1', m.node.metadata.name, { labels: { app: 'web', tier: 'front' } }),
        makePdb('by-app', { matchLabels: { app: 'web' } }, { maxUnavailable: 1 }),
        makePdb('by-tier', { matchLabels: { tier: 'front' } }, { maxUnavailable: 1 }),
      ],
    );
    await s.deleteObject('NodeClaim', m.nodeClaim.metadata.name);
    await s.runFor(1_000);
    expect(s.attempted('FailedDraining')).toContain(
      'Failed to drain node, eviction does not support multiple PDBs (Pod=default/web-1)',
    );
    expect(s.counter('karpenter_pods_eviction_requests_total', { code: '500' })).toBeGreaterThan(1);
    expect((await s.pod('web-1'))!.metadata.deletionTimestamp).toBeUndefined();
  });

  it('the Evicted reason is the NodeClaim DisruptionReason', async () => {
    const s = new Scenario();
    const [m] = await s.start(
      (c) => Promise.all([launchMachine(c, 'default', 0)]),
      ([m]) => [makePod('web-1', m.node.metadata.name)],
    );
    const conditions = [
      ...(m.nodeClaim.status?.conditions ?? []),
      { type: 'DisruptionReason', status: 'True', reason: 'Underutilized', lastTransitionTime: '2026-08-20T12:00:00Z' },
    ];
    await s.cluster.patch({ kind: 'NodeClaim', name: m.nodeClaim.metadata.name }, { status: { conditions } });
    await s.deleteObject('NodeClaim', m.nodeClaim.metadata.name);
    await s.tick();
    expect(s.messages('Evicted')).toEqual(['Evicted pod: Underutilized']);
    expect(s.counter('karpenter_pods_drained_total', { reason: 'Underutilized' })).toBe(1);
  });

  it(
    'drops entries whose pod is gone or was replaced by another with the same name, without ' + 'touching the new pod',
    async () => {
      const s = new Scenario();
      const [m] = await s.start(
        (c) => Promise.all([launchMachine(c, 'default', 0)]),
        ([m]) => [makePod('web-1', m.node.metadata.name), makePod('web-2', m.node.metadata.name)],
      );
      const queue = new EvictionQueue({ client: s.cluster, recorder: s.events, metrics: s.metrics });
      const [p1, p2] = [(await s.pod('web-1'))!, (await s.pod('web-2'))!];
      queue.add([p1, p2], { reason: 'Drifted' }, s.clock.now());
      await s.cluster.delete({ kind: 'Pod', name: 'web-1', namespace: 'default' }, { gracePeriodSeconds: 0 });
      await s.cluster.delete({ kind: 'Pod', name: 'web-2', namespace: 'default' }, { gracePeriodSeconds: 0 });
      await s.cluster.create({
        ...makePod('web-2', m.node.metadata.name),
        metadata: { ...makePod('web-2', m.node.metadata.name).metadata, uid: undefined },
      });
      const outcomes = await queue.reconcile(s.clock.now());
      expect([...outcomes]).toEqual([
        ['default/web-1', 'dropped'],
        ['default/web-2', 'dropped'],
      ]);
      expect(queue.size).toBe(0);
      expect((await s.pod('web-2'))!.metadata.deletionTimestamp).toBeUndefined(); // the new pod is untouched
    },
  );

  it('a later add only tightens the deadline', async () => {
    const s = new Scenario();
    await s.start(
      (c) => Promise.all([launchMachine(c, 'default', 0)]),
      ([m]) => [makePod('db-1', m.node.metadata.name, { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })],
    );
    const queue = new EvictionQueue({ client: s.cluster, recorder: s.events });
    const pod = (await s.pod('db-1'))!;
    queue.add([pod], { reason: '', deadlineMs: T0 + 600_000 }, T0);
    queue.add([pod], { reason: '', deadlineMs: T0 + 900_000 }, T0); // ignored: later
    queue.add([pod], { reason: '' }, T0); // ignored: no deadline does not clear one
    expect(await queue.reconcile(T0)).toEqual(new Map([['default/db-1', 'waiting']]));
    s.clock.set(T0 + 570_001); // 1 ms past T − 30 s of the first deadline
    expect(await queue.reconcile(s.clock.now())).toEqual(new Map([['default/db-1', 'force-deleted']]));
    // 12:09:30.001 + 29 s (trunc of 29.999), stored in whole seconds
    expect((await s.pod('db-1'))!.metadata.deletionTimestamp).toBe('2026-08-20T12:09:59Z');
  });
});
