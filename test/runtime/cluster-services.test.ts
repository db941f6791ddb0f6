// SPDX-License-Identifier: Apache-2.0
// Two controller replicas on one in-memory API server: only the leader acts and writes NodePool
// status, both load policies from ConfigMaps into their runtime, readiness names what is
// missing, events reach the cluster, and stopping the leader hands over at once.
import { describe, expect, it } from 'vitest';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { ConfigMap, KubeObject, NodePool } from '../../src/core/cluster/types.js';
import { FakeClock } from '../../src/core/clock.js';
import { ClusterServices } from '../../src/control/runtime/cluster-services.js';
import { Runtime } from '../../src/control/runtime/runtime.js';
import { CheckedSource } from '../../src/control/runtime/readiness.js';
import { RuntimeStatus } from '../../src/control/runtime/status.js';
import { pool, T0 } from '../reconciler/scenario.js';

const NS = 'kpol-system';
const policyCm = (text: string): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'kpol-policies', namespace: NS, labels: { 'kpol.dev/policy': 'true' } },
  data: { 'p.kpol': text },
});

function replicas() {
  const clock = new FakeClock(T0);
  const cluster = new MemoryCluster(clock, [
    pool('a', ['m5.xlarge']) as KubeObject,
    policyCm('policy pa for nodepool a {\n  budget 1 for Drifted\n}\n'),
  ]);
  const make = (identity: string) => {
    const rt = new Runtime({ clock, objects: [], cluster, policies: [] });
    const lost: string[] = [];
    const services = new ClusterServices(rt, {
      client: cluster,
      clock,
      namespace: NS,
      leaderElection: { name: 'kpol-controller', identity },
      onLostLeadership: () => lost.push(identity),
    });
    const ready = new CheckedSource(new RuntimeStatus(rt, 1), services.readiness());
    return { rt, services, ready, lost };
  };
  return { clock, cluster, a: make('a'), b: make('b') };
}

describe('controller replicas on a shared cluster', () => {
  it('only the leader acts; readiness names what is missing; policies come from the ConfigMap', async () => {
    const w = replicas();
    expect(w.a.ready.failures()).toEqual(['policies: not loaded yet']); // a follower has no informers to wait for
    await w.a.services.policies.start();
    await w.b.services.policies.start();
    expect(w.a.rt.policies.map((p) => p.name)).toEqual(['pa']);
    expect(w.b.rt.policies.map((p) => p.name)).toEqual(['pa']);
    // Neither leads yet: both are ready (a follower has nothing to sync), neither acts.
    expect(w.a.ready.failures()).toEqual([]);
    expect(w.a.services.shouldAct()).toBe(false);

    await w.a.services.elector!.step();
    await w.b.services.elector!.step();
    expect(w.a.services.shouldAct()).toBe(true);
    expect(w.b.services.shouldAct()).toBe(false);
    expect(w.a.ready.failures()).toEqual(['informers: not synced yet']);
    w.a.services.markInformersSynced();
    expect(w.a.ready.ready()).toBe(true);

    const r = await w.a.rt.tick();
    await w.a.services.afterTick(r);
    await w.b.services.afterTick(r); // a follower writes nothing
    const np = await w.cluster.get<NodePool>({ kind: 'NodePool', name: 'a' });
    expect((np?.status as { disruption?: { policy: string } })?.disruption?.policy).toBe('pa');
  });

  it(
    'a broken ConfigMap push reaches the cluster as a Warning Event while the last good policy ' +
      'stays in both replicas',
    async () => {
      const w = replicas();
      await w.a.services.start(); // also mirrors events to the cluster; campaigns with real timers
      await w.b.services.policies.start();
      const cm = (await w.cluster.get<ConfigMap>({ kind: 'ConfigMap', name: 'kpol-policies', namespace: NS }))!;
      await w.cluster.update({ ...cm, data: { 'p.kpol': 'policy pa for nodepool a {\n  budget 1 for Drifed\n}\n' } });
      await w.cluster.idle();
      await w.a.services.policies.settled();
      await w.b.services.policies.settled();
      await w.cluster.idle();
      expect(w.a.rt.policies[0].budgets[0].reasons).toEqual(['Drifted']);
      expect(w.b.rt.policies[0].budgets[0].reasons).toEqual(['Drifted']);
      const events = (
        await w.cluster.list<KubeObject & { reason: string; message: string; type: string }>('Event', NS)
      ).filter((e) => e.reason === 'PolicyInvalid');
      expect(events.length).toBeGreaterThanOrEqual(1);
      expect(events[0]).toMatchObject({
        type: 'Warning',
        involvedObject: { kind: 'ConfigMap', name: 'kpol-policies', namespace: NS },
      });
      expect(events[0].message).toContain('configmap/kpol-system/kpol-policies/p.kpol:2:16');
      await w.a.services.stop();
    },
  );

  it(
    'stopping the leader releases the lease: the other replica acts at once, and the stopped ' +
      'one does not report a lost leadership',
    async () => {
      const w = replicas();
      await w.a.services.policies.start();
      await w.b.services.policies.start();
      await w.a.services.elector!.step();
      expect(await w.b.services.elector!.step()).toBe(false);
      await w.a.services.stop();
      expect(await w.b.services.elector!.step()).toBe(true);
      expect(w.b.services.shouldAct()).toBe(true);
      expect(w.a.services.shouldAct()).toBe(false);
      expect(w.a.lost).toEqual([]);
    },
  );

  it('a leader that is replaced reports lost leadership (the caller exits)', async () => {
    const w = replicas();
    await w.a.services.elector!.step();
    w.clock.advance(20_000); // a stopped renewing
    await w.b.services.elector!.step();
    w.clock.advance(15_000);
    expect(await w.b.services.elector!.step()).toBe(true);
    await w.a.services.elector!.step();
    expect(w.a.lost).toEqual(['a']);
  });

  it('only the leader reports on ConfigMaps; a new leader annotates what it had only loaded', async () => {
    const w = replicas();
    await w.b.services.elector!.step(); // b leads; becoming leader, it loads and annotates once
    await w.b.services.policies.settled();
    await w.a.services.policies.start(); // a follows: loads, but neither annotates nor publishes
    const cm = async () =>
      (await w.cluster.get<ConfigMap>({ kind: 'ConfigMap', name: 'kpol-policies', namespace: NS }))!;
    expect((await cm()).metadata.annotations?.['kpol.dev/status']).toBe('valid');
    await w.cluster.update({
      ...(await cm()),
      data: { 'p.kpol': 'policy pa for nodepool a {\n  budget 1 for Drifed\n}\n' },
    });
    await w.cluster.idle();
    await w.a.services.policies.settled();
    expect(w.a.rt.events.list({ reason: 'PolicyInvalid' })).toEqual([]);
    // b does not watch here; a must not write
    expect((await cm()).metadata.annotations?.['kpol.dev/status']).toBe('valid');
    expect(w.a.services.policies.states.get(`${NS}/kpol-policies`)?.rejected).toHaveLength(1);

    await w.b.services.stop(); // b steps down gracefully; a takes over and refreshes
    await w.a.services.elector!.step();
    await w.a.services.policies.settled();
    expect((await cm()).metadata.annotations?.['kpol.dev/status']).toContain(
      `configmap/${NS}/kpol-policies/p.kpol:2:16`,
    );
  });
});
