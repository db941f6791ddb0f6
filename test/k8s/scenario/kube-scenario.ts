// SPDX-License-Identifier: Apache-2.0
// The scenario harness's backend on the real control plane. Each Scenario gets its own
// KubeClusterClient (fresh informers) on a cluster wiped of the previous scenario's objects,
// seeded with the scenario's objects. kube-controller-manager runs ReplicaSets, PDB status and
// garbage collection; kpol's provisioner keeps binding pods (through pods/binding) because the
// scenario's pods name a scheduler that kube-scheduler leaves alone, so placements are kpol's
// simulation on both backends. Before and after every tick the harness waits until the real
// controllers and the informers have caught up with what the test and the tick changed, as the
// in-memory runtime's in-process controllers and watches have by construction. The runtime reads through a
// TimelineClient, which puts the server's
// timestamps on the scenario's fake clock (see scenario-timeline.ts).
import type { Kind } from '../../../src/core/cluster/client.js';
import { isApiError } from '../../../src/core/cluster/client.js';
import type { KubeObject, Pod, PodDisruptionBudget } from '../../../src/core/cluster/types.js';
import { KubeClusterClient } from '../../../src/edge/kube/kube-cluster.js';
import type { ScenarioBackend } from '../../reconciler/scenario.js';
import { deleteNamespaces, imaged, informersCaughtUp, newKubeClient } from '../adapter/kube-backend.js';
import { installShippedCrds } from '../shipped-crds.js';
import { eventually } from '../control-plane/eventually.js';
import { deleteFixtureOwners, withExistingOwners } from './fixture-owners.js';
import { ScenarioTimeline, TimelineClient } from './scenario-timeline.js';
import { sharedControlPlane } from '../control-plane/inject.js';

/** Pods naming this scheduler are left to kpol's provisioner (kube-scheduler only binds its own). */
export const SCENARIO_SCHEDULER = 'kpol-scenario';

const NS = 'default';
const KINDS: readonly Kind[] = [
  'NodePool',
  'NodeClaim',
  'Node',
  'Pod',
  'PodDisruptionBudget',
  'ConfigMap',
  'ReplicaSet',
];

/** What the scenario objects need on a real server: no server-owned fields, images, our scheduler. */
function forCreate(obj: KubeObject): KubeObject {
  const {
    uid: _u,
    resourceVersion: _r,
    creationTimestamp: _c,
    deletionTimestamp: _d,
    generation: _g,
    ...metadata
  } = obj.metadata;
  let o: KubeObject & { spec?: Record<string, any> } = imaged({ ...obj, metadata });
  if (o.kind === 'Pod') o = { ...o, spec: { ...o.spec, schedulerName: SCENARIO_SCHEDULER } };
  if (o.kind === 'ReplicaSet' && o.spec?.template)
    o = {
      ...o,
      spec: {
        ...o.spec,
        template: { ...o.spec.template, spec: { ...o.spec.template.spec, schedulerName: SCENARIO_SCHEDULER } },
      },
    };
  return o;
}

/** Namespaces the control plane itself keeps; every other one is a test's. */
const SYSTEM_NAMESPACES = new Set([NS, 'kube-system', 'kube-public', 'kube-node-lease']);

/**
 * Removes everything a previous scenario or test file left: every namespace but the system ones
 * (kpol's runtime sees pods in all namespaces, and would provision for or count another file's
 * pods), workloads in `default`, every Node, NodeClaim and NodePool.
 */
async function wipe(client: KubeClusterClient): Promise<void> {
  const namespaces = await client.rest.request<{ items: KubeObject[] }>({ verb: 'GET', path: '/api/v1/namespaces' });
  await deleteNamespaces(
    client,
    namespaces.items.map((n) => n.metadata.name).filter((n) => !SYSTEM_NAMESPACES.has(n)),
  );
  for (const kind of ['ReplicaSet', 'PodDisruptionBudget', 'ConfigMap'] as const) {
    for (const o of await client.listFromServer(kind, NS))
      await ignoreMissing(client.delete({ kind, namespace: NS, name: o.metadata.name }));
  }
  await deleteFixtureOwners(client.rest, NS);
  for (const p of await client.listFromServer<Pod>('Pod', NS))
    await ignoreMissing(
      client.delete({ kind: 'Pod', namespace: NS, name: p.metadata.name }, { gracePeriodSeconds: 0 }),
    );
  for (const kind of ['NodeClaim', 'Node', 'NodePool'] as const) {
    for (const o of await client.listFromServer(kind)) {
      if (o.metadata.finalizers?.length)
        await ignoreMissing(client.patch({ kind, name: o.metadata.name }, { metadata: { finalizers: null } }));
      await ignoreMissing(client.delete({ kind, name: o.metadata.name }, { gracePeriodSeconds: 0 }));
    }
  }
  await eventually('the previous scenario to be gone', async () => {
    const left = (
      await Promise.all([
        ...(['ReplicaSet', 'PodDisruptionBudget', 'ConfigMap', 'Pod'] as const).map((k) =>
          client.listFromServer(k, NS),
        ),
        ...(['NodeClaim', 'Node', 'NodePool'] as const).map((k) => client.listFromServer(k)),
      ])
    ).flat();
    if (left.length) throw new Error(left.map((o) => `${o.kind}/${o.metadata.name}`).join(', '));
    return true;
  });
}

const ignoreMissing = async (p: Promise<unknown>): Promise<void> => {
  try {
    await p;
  } catch (e) {
    if (!isApiError(e, 404)) throw e;
  }
};

const ready = (p: Pod): boolean =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

const selects = (pdb: PodDisruptionBudget, p: Pod): boolean =>
  Object.entries(pdb.spec.selector?.matchLabels ?? {}).every(([k, v]) => p.metadata.labels?.[k] === v) &&
  pdb.spec.selector !== undefined;

/** What kube-controller-manager has not yet done after the last tick, or undefined. */
async function behind(client: KubeClusterClient): Promise<string | undefined> {
  const [pods, replicaSets, pdbs, nodes, nodeClaims] = await Promise.all([
    client.listFromServer<Pod>('Pod', NS),
    client.listFromServer<KubeObject & { spec: { replicas?: number }; status?: { observedGeneration?: number } }>(
      'ReplicaSet',
      NS,
    ),
    client.listFromServer<PodDisruptionBudget & { status?: { observedGeneration?: number } }>(
      'PodDisruptionBudget',
      NS,
    ),
    client.listFromServer('Node'),
    client.listFromServer('NodeClaim'),
  ]);
  const live = pods.filter((p) => !p.metadata.deletionTimestamp);
  for (const rs of replicaSets) {
    const owned = live.filter((p) => p.metadata.ownerReferences?.some((r) => r.uid === rs.metadata.uid)).length;
    if (owned !== (rs.spec.replicas ?? 1) || (rs.status?.observedGeneration ?? 0) < (rs.metadata.generation ?? 1))
      return `ReplicaSet ${rs.metadata.name}: ${owned} of ${rs.spec.replicas} pods`;
  }
  for (const pdb of pdbs) {
    const healthy = live.filter((p) => selects(pdb, p) && ready(p)).length;
    if (
      (pdb.status?.observedGeneration ?? 0) < (pdb.metadata.generation ?? 1) ||
      pdb.status?.currentHealthy !== healthy
    )
      return `PodDisruptionBudget ${pdb.metadata.name}`;
  }
  const uids = new Set([...replicaSets, ...nodeClaims, ...nodes].map((o) => o.metadata.uid));
  for (const o of [...pods, ...nodes]) {
    const refs = (o.metadata.ownerReferences ?? []).filter((r) => r.kind === 'ReplicaSet' || r.kind === 'NodeClaim');
    if (refs.length && !o.metadata.deletionTimestamp && refs.every((r) => !uids.has(r.uid)))
      return `orphan ${o.kind} ${o.metadata.name}`;
  }
  return undefined;
}

/** A stamp of everything the informers have seen and the client has written. */
const stampOf = (client: KubeClusterClient): string => KINDS.map((k) => client.kindVersion(k)).join('/');

let previous: { client: KubeClusterClient; timeline: TimelineClient } | undefined;
export const kubeScenarioBackend: ScenarioBackend = {
  name: 'kube',
  prepare(objects, clock) {
    closeScenarioClient();
    // Cached reads, as `kpol run` makes them; the harness's own checks ask the server.
    const client = newKubeClient({ cachedReads: true });
    const timeline = new TimelineClient(client, new ScenarioTimeline(clock), KINDS, async (o) =>
      withExistingOwners(client.rest, forCreate(o)),
    );
    previous = { client, timeline };
    let settledAt = '';
    const settle = async () => {
      await eventually('kube-controller-manager to catch up', async () => {
        const lag = await behind(client);
        if (lag) throw new Error(lag);
        return true;
      });
      await informersCaughtUp(client, KINDS);
      settledAt = stampOf(client);
    };
    const ready = (async () => {
      await installShippedCrds(sharedControlPlane().kubeconfigPath);
      await wipe(client);
      await client.start(KINDS);
      for (const o of objects) await timeline.create(o);
      await settle();
    })();
    return {
      options: { cluster: timeline, workloadControllers: false, bindPods: true },
      ready,
      // Nothing changed since the last settle: the controllers have nothing to catch up with.
      settle: async () => {
        if (stampOf(client) !== settledAt) await settle();
      },
    };
  },
};

export function closeScenarioClient(): void {
  previous?.timeline.close();
  previous?.client.close();
  previous = undefined;
}

/**
 * After a file's last scenario: closes its client and wipes what it left. The next test file
 * on the shared control plane may run `kpol run`, which would adopt the leftover NodeClaims'
 * machines and act on the leftover pool and pods.
 */
export async function finishScenarios(): Promise<void> {
  if (!previous) return;
  closeScenarioClient();
  await wipe(newKubeClient());
}
