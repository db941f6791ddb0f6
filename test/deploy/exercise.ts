// SPDX-License-Identifier: Apache-2.0
// Drives kpol's controller as `kpol run --in-cluster` runs it (real-cluster settings: no
// in-process ReplicaSet/PDB controllers, kube-scheduler binds) through provisioning, drift with a
// PDB, consolidation, a broken and a fixed policy ConfigMap, NodePool status and leader
// election, and returns the API requests it made. The cluster's own controllers (ReplicaSet,
// PDB status, scheduler) run on the unrecorded server: their requests are not kpol's.
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { ConfigMap, KubeObject, Node, Pod } from '../../src/core/cluster/types.js';
import { FakeClock } from '../../src/core/clock.js';
import { PdbStatusController } from '../../src/world/controllers/pdb-status.js';
import { ReplicaSetController } from '../../src/world/controllers/replicaset.js';
import { mirrorEventsToCluster } from '../../src/core/observe/cluster-events.js';
import { VIEW_KINDS } from '../../src/control/reconciler/cluster-view.js';
import { ClusterServices } from '../../src/control/runtime/cluster-services.js';
import { Runtime } from '../../src/control/runtime/runtime.js';
import { pool, replicaSet, T0 } from '../reconciler/scenario.js';
import { RecordingClient, type ApiRequest } from './api-inventory.js';

export const NAMESPACE = 'kpol-system';

const ready = (n: Node) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** A stand-in for kube-scheduler in this exercise: one 3-CPU pod per 4-CPU node, on Ready untainted nodes. */
async function bindPending(raw: MemoryCluster): Promise<void> {
  const pods = await raw.list<Pod>('Pod');
  const busy = new Set(
    pods
      .filter((p) => p.spec.nodeName && !['Succeeded', 'Failed'].includes(p.status?.phase ?? ''))
      .map((p) => p.spec.nodeName),
  );
  const free = (await raw.list<Node>('Node')).filter(
    (n) =>
      ready(n) &&
      !n.spec.unschedulable &&
      !(n.spec.taints ?? []).some((t) => t.effect === 'NoSchedule') &&
      !busy.has(n.metadata.name),
  );
  for (const p of pods) {
    if (p.spec.nodeName || p.metadata.deletionTimestamp) continue;
    const n = free.shift();
    if (!n) return;
    await raw.patch(
      { kind: 'Pod', name: p.metadata.name, namespace: p.metadata.namespace },
      { spec: { nodeName: n.metadata.name } },
    );
  }
}

export async function exerciseController(): Promise<{ requests: ApiRequest[]; ticks: number; replaced: boolean }> {
  const clock = new FakeClock(T0);
  const pdb: KubeObject = {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'w', namespace: 'default' },
    spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'w' } } },
  };
  const cm: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kpol-policies', namespace: NAMESPACE, labels: { 'kpol.dev/policy': 'true' } },
    data: {
      'a.kpol': 'policy pa for nodepool a {\n  consolidate when empty or underutilized after 1m\n  budget 1\n}\n',
    },
  };
  const raw = new MemoryCluster(clock, [pool('a', ['m5.xlarge']), replicaSet('w', 3, { cpu: '3' }), pdb, cm]);
  const rec = new RecordingClient(raw);
  // The shipped Deployment passes --mode standalone: no CRD read for `--mode auto` (so no grant for it).
  const rt = new Runtime({
    clock,
    objects: [],
    cluster: rec,
    policies: [],
    workloadControllers: false,
    bindPods: false,
  });
  const services = new ClusterServices(rt, {
    client: rec,
    clock,
    namespace: NAMESPACE,
    leaderElection: { name: 'kpol-controller', identity: 'kpol-0' },
  });
  const stopEvents = mirrorEventsToCluster(rt.events, { client: rec, clock, instance: 'kpol-0' });
  await services.policies.start();
  rec.informers(VIEW_KINDS); // as run-cluster.ts: client.start(VIEW_KINDS)
  services.markInformersSynced();
  const world = { rs: new ReplicaSetController(raw), pdb: new PdbStatusController(raw, clock) };

  let ticks = 0;
  const tick = async () => {
    await world.rs.reconcile();
    await world.pdb.reconcile();
    await bindPending(raw);
    await services.elector!.step();
    if (services.shouldAct()) {
      const r = await rt.tick();
      await services.afterTick(r);
    }
    await raw.idle();
    await services.policies.settled();
    clock.advance(10_000);
    ticks++;
  };
  const running = async () =>
    (await raw.list<Pod>('Pod')).filter(
      (p) => p.spec.nodeName && p.status?.phase === 'Running' && !p.metadata.deletionTimestamp,
    ).length;
  const until = async (done: () => Promise<boolean>, max = 200) => {
    for (let i = 0; i < max && !(await done()); i++) await tick();
  };

  await until(async () => (await running()) === 3);
  const original = new Set((await raw.list<KubeObject>('NodeClaim')).map((nc) => nc.metadata.name));
  // Drift: every node is replaced, one at a time, pods evicted through the PDB.
  await raw.patch({ kind: 'NodePool', name: 'a' }, { spec: { template: { metadata: { labels: { rev: '2' } } } } });
  await until(
    async () =>
      (await raw.list<KubeObject>('NodeClaim')).every((nc) => !original.has(nc.metadata.name)) &&
      (await running()) === 3,
  );
  const replaced = (await raw.list<KubeObject>('NodeClaim')).every((nc) => !original.has(nc.metadata.name));
  // A broken policy push, then a fix.
  await services.elector!.step(); // renew first: only the leader reports on the ConfigMap
  const cur = (await raw.get<ConfigMap>({ kind: 'ConfigMap', name: 'kpol-policies', namespace: NAMESPACE }))!;
  await raw.update({ ...cur, data: { 'a.kpol': 'policy pa for nodepool a {\n  budget 1 for Drifed\n}\n' } });
  await tick();
  // Scale down: consolidation removes the emptied nodes.
  const rs = (await raw.get<KubeObject & { spec: { replicas: number } }>({
    kind: 'ReplicaSet',
    name: 'w',
    namespace: 'default',
  }))!;
  await raw.update({ ...rs, spec: { ...rs.spec, replicas: 1 } });
  await until(async () => (await raw.list<Node>('Node')).length === 1, 120);
  await services.stop();
  stopEvents();
  return { requests: [...rec.requests.values()], ticks, replaced };
}
