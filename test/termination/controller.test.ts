// SPDX-License-Identifier: Apache-2.0
// The termination flow end to end on MemoryCluster + SimulatedCloud (KARPENTER.md#termination).
import { describe, expect, it } from 'vitest';
import type { NodePool } from '../../src/core/cluster/types.js';
import { makeNodePool, makePod } from '../support/cluster-builder.js';
import { condition, launchMachine, Scenario, T0 } from './harness.js';

const secs = (s: number): number => T0 + s * 1000;

describe('TerminationController', () => {
  it('deleting a NodeClaim: taint, drain, MinDrainTime, instance gone, then Node and NodeClaim released', async () => {
    const s = new Scenario();
    const [m] = await s.start(
      (c) => Promise.all([launchMachine(c, 'default', 0)]),
      ([m]) => [makePod('web-1', m.node.metadata.name), makePod('web-2', m.node.metadata.name)],
    );
    const nodeName = m.node.metadata.name;
    const claimName = m.nodeClaim.metadata.name;
    const providerID = m.node.spec.providerID!;

    await s.deleteObject('NodeClaim', claimName);
    await s.tick();
    const node = (await s.node(nodeName))!;
    expect(node.metadata.deletionTimestamp).toBe('2026-08-20T12:00:00Z'); // the NodeClaim finalizer deleted its Node
    expect(node.spec.taints).toContainEqual({ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' });
    expect(node.metadata.labels?.['node.kubernetes.io/exclude-from-external-load-balancers']).toBe('karpenter');
    expect(condition(await s.nodeClaim(claimName), 'Drained')).toMatchObject({ status: 'Unknown', reason: 'Draining' });
    expect((await s.pod('web-1'))!.metadata.deletionTimestamp).toBe('2026-08-20T12:00:30Z'); // evicted, 30 s grace
    expect(s.messages('Evicted')).toEqual(['Evicted pod: Forceful Termination', 'Evicted pod: Forceful Termination']);
    expect(s.messages('FailedDraining')).toEqual(['Failed to drain node, 2 pods are waiting to be evicted']);
    expect(s.counter('karpenter_pods_eviction_requests_total', { code: '200' })).toBe(2);
    expect(s.counter('karpenter_pods_drained_total', { reason: 'Forceful Termination' })).toBe(2);
    expect(s.cloud.calls.filter((c) => c.op === 'delete')).toEqual([]);

    // Pods leave at 12:00:30; the Drained condition has been Unknown for ≥ 5 s by then.
    const drainedAt = await s.runUntil(
      async () => condition(await s.nodeClaim(claimName), 'Drained')?.status === 'True',
    );
    expect(drainedAt).toBe(secs(30));
    expect(s.counter('karpenter_nodes_drained_total', { nodepool: 'default' })).toBe(1);
    expect(condition(await s.nodeClaim(claimName), 'InstanceTerminating')?.status).toBe('True');
    expect(s.cloud.calls.filter((c) => c.op === 'delete').map((c) => c.at)).toEqual([secs(30)]);

    // The instance needs 20 s to terminate: the Node stays until the cloud no longer has it.
    const releasedAt = await s.runUntil(async () => (await s.node(nodeName)) === undefined);
    expect(releasedAt).toBe(secs(50));
    expect(await s.cloud.get(providerID)).toBeUndefined();
    expect(await s.nodeClaim(claimName)).toBeUndefined(); // released in the same pass
    expect(
      s.counter('karpenter_nodes_terminated_total', {
        nodepool: 'default',
        zone: m.node.metadata.labels!['topology.kubernetes.io/zone'],
      }),
    ).toBe(1);
    expect(
      s.counter('karpenter_nodeclaims_terminated_total', {
        nodepool: 'default',
        capacity_type: 'on-demand',
        zone: m.nodeClaim.metadata.labels!['topology.kubernetes.io/zone'],
      }),
    ).toBe(1);
    expect(s.metrics.render()).toMatch(/karpenter_nodes_termination_duration_seconds_sum\{nodepool="default"\} 50/);
  });

  it('MinDrainTime: an empty node stays draining for 5 s before the instance is deleted', async () => {
    const s = new Scenario();
    const [m] = await s.start(
      (c) => Promise.all([launchMachine(c, 'default', 0)]),
      () => [],
    );
    await s.deleteObject('NodeClaim', m.nodeClaim.metadata.name);
    await s.tick();
    expect(condition(await s.nodeClaim(m.nodeClaim.metadata.name), 'Drained')).toMatchObject({
      status: 'Unknown',
      lastTransitionTime: '2026-08-20T12:00:00Z',
    });
    await s.runFor(4_900);
    expect(condition(await s.nodeClaim(m.nodeClaim.metadata.name), 'Drained')?.status).toBe('Unknown');
    expect(s.cloud.calls.some((c) => c.op === 'delete')).toBe(false);
    await s.runFor(100);
    expect(condition(await s.nodeClaim(m.nodeClaim.metadata.name), 'Drained')?.status).toBe('True');
    expect(s.cloud.calls.filter((c) => c.op === 'delete').map((c) => c.at)).toEqual([secs(5)]);
  });

  it('MinDrainTime is configurable', async () => {
    const s = new Scenario();
    const [m] = await s.start(
      (c) => Promise.all([launchMachine(c, 'default', 0)]),
      () => [],
      { minDrainTimeMs: 0 },
    );
    await s.deleteObject('NodeClaim', m.nodeClaim.metadata.name);
    await s.tick();
    expect(condition(await s.nodeClaim(m.nodeClaim.metadata.name), 'Drained')?.status).toBe('True');
  });

  it('manual Node deletion takes the same path: the NodeClaim is deleted, drained, terminated, released', async () => {
    const s = new Scenario();
    const [m] = await s.start(
      (c) => Promise.all([launchMachine(c, 'default', 0, { terminationGracePeriod: '10m' })]),
      ([m]) => [makePod('web-1', m.node.metadata.name)],
    );
    await s.deleteObject('Node', m.node.metadata.name);
    await s.tick();
    const claim = (await s.nodeClaim(m.nodeClaim.metadata.name))!;
    expect(claim.metadata.deletionTimestamp).toBe('2026-08-20T12:00:00Z');
    expect(claim.metadata.annotations?.['karpenter.sh/nodeclaim-termination-timestamp']).toBe('2026-08-20T12:10:00Z');
    expect(s.events.list({ reason: 'TerminationGracePeriodExpiring' }).map((e) => [e.object.kind, e.message])).toEqual([
      ['NodeClaim', 'All pods will be deleted by 2026-08-20T12:10:00Z'],
      ['Node', 'All pods will be deleted by 2026-08-20T12:10:00Z'],
    ]);
    expect((await s.pod('web-1'))!.metadata.deletionTimestamp).toBeDefined();
    await s.runUntil(async () => (await s.nodeClaim(m.nodeClaim.metadata.name)) === undefined);
    expect(await s.node(m.node.metadata.name)).toBeUndefined();
    expect(s.clock.now()).toBe(secs(50)); // pod 30 s + instance 20 s
  });

  it('the annotation is written once: a later policy TGP does not move it', async () => {
    const s = new Scenario();
    const [m] = await s.start(
      (c) => Promise.all([launchMachine(c, 'default', 0)]),
      ([m]) => [makePod('web-1', m.node.metadata.name)],
      {
        tgpSecondsFor: () => 120,
      },
    );
    await s.deleteObject('NodeClaim', m.nodeClaim.metadata.name);
    await s.tick();
    const key = 'karpenter.sh/nodeclaim-termination-timestamp';
    expect((await s.nodeClaim(m.nodeClaim.metadata.name))!.metadata.annotations?.[key]).toBe('2026-08-20T12:02:00Z');
    s.controller = s.newController({ tgpSecondsFor: () => 10 });
    await s.runFor(1_000);
    expect((await s.nodeClaim(m.nodeClaim.metadata.name))!.metadata.annotations?.[key]).toBe('2026-08-20T12:02:00Z');
    expect(s.messages('TerminationGracePeriodExpiring').filter((m) => m.endsWith('12:00:10Z'))).toEqual([]);
  });

  it('instance already gone and Node not Ready: the finalizer is removed at once, no drain', async () => {
    const s = new Scenario();
    const [m] = await s.start(
      (c) => Promise.all([launchMachine(c, 'default', 0, { ready: 'False' })]),
      ([m]) => [makePod('web-1', m.node.metadata.name)],
    );
    await s.cloud.delete(m.node.spec.providerID!);
    s.clock.advance(20_000); // the cloud has terminated it
    await s.deleteObject('Node', m.node.metadata.name);
    await s.tick();
    expect(await s.node(m.node.metadata.name)).toBeUndefined();
    expect(await s.nodeClaim(m.nodeClaim.metadata.name)).toBeUndefined();
    expect(s.messages('Evicted')).toEqual([]);
    expect((await s.pod('web-1'))!.metadata.deletionTimestamp).toBeUndefined(); // pod GC is not termination's job
  });

  it('a Ready Node is drained even when the cloud says the instance is gone', async () => {
    const s = new Scenario();
    const [m] = await s.start(
      (c) => Promise.all([launchMachine(c, 'default', 0)]),
      ([m]) => [makePod('web-1', m.node.metadata.name)],
    );
    await s.cloud.delete(m.node.spec.providerID!);
    s.clock.advance(20_000);
    await s.deleteObject('Node', m.node.metadata.name);
    await s.tick();
    expect(await s.node(m.node.metadata.name)).toBeDefined();
    expect(s.messages('Evicted')).toEqual(['Evicted pod: Forceful Termination']);
  });

  it('deleting a NodePool deletes its NodeClaims, which terminate gracefully', async () => {
    const s = new Scenario();
    const pool: NodePool = {
      ...makeNodePool('batch'),
      metadata: { ...makeNodePool('batch').metadata, finalizers: ['example.com/hold'] },
    };
    const ms = await s.start(
      (c) => Promise.all([launchMachine(c, 'batch', 0), launchMachine(c, 'batch', 1), launchMachine(c, 'default', 0)]),
      (ms) => [pool, makeNodePool('default'), makePod('job-1', ms[0].node.metadata.name)],
    );
    await s.deleteObject('NodePool', 'batch');
    await s.tick();
    const deleting = await Promise.all(
      ms.map(async (m) => (await s.nodeClaim(m.nodeClaim.metadata.name))?.metadata.deletionTimestamp !== undefined),
    );
    expect(deleting).toEqual([true, true, false]);
    expect((await s.pod('job-1'))!.metadata.deletionTimestamp).toBeDefined(); // evicted, not removed
    await s.runUntil(async () => (await s.cluster.list('NodeClaim')).length === 1);
    expect((await s.cluster.list('Node')).map((n) => n.metadata.name)).toEqual([ms[2].node.metadata.name]);
  });

  it('a restarted controller resumes mid-drain from cluster state and finishes', async () => {
    const s = new Scenario();
    const [m] = await s.start(
      (c) => Promise.all([launchMachine(c, 'default', 0)]),
      ([m]) => [
        makePod('web-1', m.node.metadata.name),
        makePod('log-agent-x', m.node.metadata.name, { owner: 'DaemonSet' }),
      ],
    );
    await s.deleteObject('NodeClaim', m.nodeClaim.metadata.name);
    await s.tick();
    await s.runFor(10_000); // tier 1 evicted, still terminating (30 s grace)
    expect((await s.pod('web-1'))!.metadata.deletionTimestamp).toBeDefined();
    expect((await s.pod('log-agent-x'))!.metadata.deletionTimestamp).toBeUndefined();

    s.controller = s.newController(); // restart: empty eviction queue, nothing else in memory
    expect(s.controller.queue.size).toBe(0);
    await s.runUntil(async () => (await s.node(m.node.metadata.name)) === undefined);
    expect(s.clock.now()).toBe(secs(80)); // web-1 gone 30 s, daemon evicted then 30 s, instance 20 s
    expect(await s.nodeClaim(m.nodeClaim.metadata.name)).toBeUndefined();
    expect(s.events.list({ reason: 'Evicted' }).map((e) => [e.object.name, e.at])).toEqual([
      ['web-1', secs(0)],
      ['log-agent-x', secs(30)],
    ]);
    expect(s.cloud.calls.filter((c) => c.op === 'delete')).toHaveLength(1);
  });

  it('a restart after the instance delete does not delete it again and waits for it to go', async () => {
    const s = new Scenario();
    const [m] = await s.start(
      (c) => Promise.all([launchMachine(c, 'default', 0)]),
      () => [],
    );
    await s.deleteObject('NodeClaim', m.nodeClaim.metadata.name);
    await s.runUntil(
      async () => condition(await s.nodeClaim(m.nodeClaim.metadata.name), 'InstanceTerminating')?.status === 'True',
    );
    s.controller = s.newController();
    await s.runUntil(async () => (await s.nodeClaim(m.nodeClaim.metadata.name)) === undefined);
    expect(s.clock.now()).toBe(secs(25));
    expect(s.cloud.calls.filter((c) => c.op === 'delete')).toHaveLength(1);
  });
});

describe('TerminationController without a NodeClaim', () => {
  it(
    'a managed Node whose NodeClaim is gone is drained (no MinDrainTime), its instance deleted,' + ' then released',
    async () => {
      const s = new Scenario();
      const [m] = await s.start(
        (c) => Promise.all([launchMachine(c, 'default', 0)]),
        ([m]) => [makePod('web-1', m.node.metadata.name)],
      );
      await s.cluster.patch({ kind: 'NodeClaim', name: m.nodeClaim.metadata.name }, { metadata: { finalizers: null } });
      await s.cluster.delete({ kind: 'NodeClaim', name: m.nodeClaim.metadata.name });
      expect(await s.nodeClaim(m.nodeClaim.metadata.name)).toBeUndefined();
      // The Node's ownerReference to the NodeClaim made the garbage collector delete it.
      expect((await s.node(m.node.metadata.name))!.metadata.deletionTimestamp).toBeDefined();
      await s.tick();
      expect(s.messages('Evicted')).toEqual(['Evicted pod: ']); // Karpenter's reason without a NodeClaim is empty
      const released = await s.runUntil(async () => (await s.node(m.node.metadata.name)) === undefined);
      expect(released).toBe(secs(50)); // pod 30 s, instance 20 s
      expect(s.counter('karpenter_nodes_drained_total', { nodepool: 'default' })).toBe(1);
      expect(s.cloud.calls.filter((c) => c.op === 'delete').map((c) => c.at)).toEqual([secs(30)]);
    },
  );
});

describe('TerminationController under concurrency', () => {
  it(
    'two controllers reconciling the same cluster at once: lost races are 409s retried next ' +
      'pass, and the flow completes',
    async () => {
      const s = new Scenario();
      const [m] = await s.start(
        (c) => Promise.all([launchMachine(c, 'default', 0, { terminationGracePeriod: '2m' })]),
        ([m]) => [
          makePod('web-1', m.node.metadata.name),
          makePod('log-agent-x', m.node.metadata.name, { owner: 'DaemonSet' }),
        ],
      );
      const other = s.newController();
      await s.deleteObject('NodeClaim', m.nodeClaim.metadata.name);
      const errors: unknown[] = [];
      let now = s.clock.now();
      while ((await s.nodeClaim(m.nodeClaim.metadata.name)) !== undefined) {
        if (now - T0 > 300_000) throw new Error('did not finish');
        await s.kubelet();
        const results = await Promise.all([s.controller.reconcile(now), other.reconcile(now)]);
        errors.push(...results.flatMap((r) => r.errors.map((e) => e.error)));
        s.clock.advance(100);
        now = s.clock.now();
      }
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.every((e) => (e as { code?: number }).code === 409)).toBe(true);
      expect(await s.node(m.node.metadata.name)).toBeUndefined();
      expect(now - T0).toBeLessThan(120_000); // everything was gone well before T
    },
  );
});

describe('TerminationController: quiet passes', () => {
  it(
    'with nothing deleting it skips its scans, and a deletion after quiet passes is handled on ' + 'the next one',
    async () => {
      const s = new Scenario();
      const [m] = await s.start(
        (c) => Promise.all([launchMachine(c, 'default', 0)]),
        ([m]) => [makePod('web-1', m.node.metadata.name)],
      );
      let lists = 0;
      const list = s.cluster.list.bind(s.cluster);
      s.cluster.list = ((...args: Parameters<typeof list>) => (lists++, list(...args))) as typeof list;
      await s.controller.reconcile(s.clock.now());
      const afterFirst = lists;
      expect(afterFirst).toBeGreaterThan(0);
      for (let i = 0; i < 5; i++) {
        s.clock.advance(60_000);
        expect(await s.controller.reconcile(s.clock.now())).toEqual({
          released: { nodes: [], nodeClaims: [] },
          errors: [],
        });
      }
      expect(lists).toBe(afterFirst);

      await s.deleteObject('Node', m.node.metadata.name);
      await s.controller.reconcile(s.clock.now());
      expect((await s.node(m.node.metadata.name))!.spec.taints).toContainEqual({
        key: 'karpenter.sh/disrupted',
        effect: 'NoSchedule',
      });
      expect((await s.pod('web-1'))!.metadata.deletionTimestamp).toBeDefined();
    },
  );
});
