// SPDX-License-Identifier: Apache-2.0
// The conformance Harness (test/cluster/memory/backends.ts) on the real control plane the k8s
// project starts: the KubeClusterClient against kube-apiserver, with kube-controller-manager's
// ReplicaSet, disruption and garbage-collector controllers doing what the in-memory harness
// runs in-process. Each setup gets fresh namespaces and a fresh prefix for cluster-scoped names.
import { randomBytes } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { isApiError, type ClusterClient, type Kind } from '../../../src/core/cluster/client.js';
import type { KubeObject, Pod } from '../../../src/core/cluster/types.js';
import { KubeClusterClient, type KubeClusterOptions } from '../../../src/edge/kube/kube-cluster.js';
import type { Backend, Harness } from '../../cluster/memory/backends.js';
import { eventually } from '../control-plane/eventually.js';
import { sharedControlPlane } from '../control-plane/inject.js';
import { installShippedCrds } from '../shipped-crds.js';

/** The image every test container runs; the real API requires one and kpol never reads it. */
export const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';

const withImages = (containers: unknown): unknown =>
  Array.isArray(containers)
    ? containers.map((c: Record<string, unknown>) => (c.image ? c : { ...c, image: PAUSE_IMAGE }))
    : containers;

/** Pods and pod templates with an image on every container (test objects are built without). */
export function imaged<T extends KubeObject>(obj: T): T {
  const o = obj as KubeObject & { spec?: Record<string, any> };
  if (o.kind === 'Pod' && o.spec)
    return { ...o, spec: { ...o.spec, containers: withImages(o.spec.containers) } } as unknown as T;
  if (o.kind === 'ReplicaSet' && o.spec?.template?.spec) {
    return {
      ...o,
      spec: {
        ...o.spec,
        template: {
          ...o.spec.template,
          spec: { ...o.spec.template.spec, containers: withImages(o.spec.template.spec.containers) },
        },
      },
    } as unknown as T;
  }
  return obj;
}

/** The client with `imaged` applied to what it creates and replaces: nothing else changes. */
export function imagingClient(client: KubeClusterClient): ClusterClient {
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === 'create') return <T extends KubeObject>(obj: T) => target.create(imaged(obj));
      if (prop === 'update') return <T extends KubeObject>(obj: T) => target.update(imaged(obj));
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/** A new client of the shared control plane, as its admin. */
export function newKubeClient(o: KubeClusterOptions = {}): KubeClusterClient {
  const kc = new KubeConfig();
  kc.loadFromFile(sharedControlPlane().kubeconfigPath);
  return new KubeClusterClient(kc, o);
}

let shared: Promise<KubeClusterClient> | undefined;

const MACHINE_KINDS = ['NodeClaim', 'Node'] as const;
const machineKey = (o: KubeObject) => `${o.kind}/${o.metadata.name}`;
/** The NodeClaims and Nodes there were before this file's first client: any other is this file's. */
let machinesBefore: Set<string> | undefined;

/** One client per test file (its informers are shared by every test of the file). */
export function kubeClient(): Promise<KubeClusterClient> {
  shared ??= (async () => {
    await installShippedCrds(sharedControlPlane().kubeconfigPath);
    const client = newKubeClient();
    machinesBefore = new Set(
      (await Promise.all(MACHINE_KINDS.map((k) => client.listFromServer(k)))).flat().map(machineKey),
    );
    return client;
  })();
  return shared;
}

/** Namespaces this file made: the cluster is shared, so the next file must not see their pods. */
const created = new Set<string>();

export async function closeKubeClient(): Promise<void> {
  cached?.close();
  cached = undefined;
  if (shared) {
    const client = await shared;
    await deleteNamespaces(client, [...created]);
    created.clear();
    await deleteMachinesSince(client, machinesBefore ?? new Set());
    machinesBefore = undefined;
    client.close();
  }
  shared = undefined;
}

/**
 * Removes the NodeClaims and Nodes made since `before`, finalizers first (no controller is left
 * to finish them). The cluster is shared: a machine of another cloud provider left behind (the
 * conformance suites' are `aws:///…`) would make the next `kpol run` standalone refuse to start.
 */
async function deleteMachinesSince(client: KubeClusterClient, before: ReadonlySet<string>): Promise<void> {
  for (const kind of MACHINE_KINDS) {
    for (const o of await client.listFromServer(kind)) {
      if (before.has(machineKey(o))) continue;
      const key = { kind, name: o.metadata.name };
      if (o.metadata.finalizers?.length) await notFound(client.patch(key, { metadata: { finalizers: null } }));
      await notFound(client.delete(key));
    }
  }
}

/** A namespace in which pods are admitted (its `default` ServiceAccount exists). */
export async function createNamespace(client: KubeClusterClient, name: string): Promise<void> {
  await client.rest.request({
    verb: 'POST',
    path: '/api/v1/namespaces',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
  created.add(name);
  await eventually(`ServiceAccount ${name}/default`, async () => {
    await client.rest.request({ verb: 'GET', path: `/api/v1/namespaces/${name}/serviceaccounts/default` });
    return true;
  });
}

const notFound = async (p: Promise<unknown>): Promise<boolean> => {
  try {
    await p;
    return false;
  } catch (e) {
    if (isApiError(e, 404)) return true;
    throw e;
  }
};

/**
 * Deletes the namespaces and their pods, and resolves once no pod of theirs is left running. A
 * terminating namespace admits no new pods, but no kubelet finishes the graceful deletion of a
 * bound pod, so the pods are deleted at once (grace 0); one still held by a finalizer only keeps
 * its deletionTimestamp. The namespaces themselves may take the namespace controller a while
 * longer: nothing waits for that, since a terminating namespace with no pods disturbs no one.
 */
export async function deleteNamespaces(client: KubeClusterClient, names: readonly string[]): Promise<void> {
  if (!names.length) return;
  await Promise.all(
    names.map((n) => notFound(client.rest.request({ verb: 'DELETE', path: `/api/v1/namespaces/${n}` }))),
  );
  const doomed = new Set(names);
  const finishing = (p: Pod) =>
    p.metadata.deletionTimestamp &&
    (p.metadata as { deletionGracePeriodSeconds?: number }).deletionGracePeriodSeconds === 0;
  await eventually(`the pods of ${names.length} deleted namespaces to be gone`, async () => {
    const left = (await client.listFromServer<Pod>('Pod')).filter(
      (p) => doomed.has(p.metadata.namespace ?? '') && !finishing(p),
    );
    await Promise.all(
      left.map((p) =>
        notFound(
          client.delete(
            { kind: 'Pod', namespace: p.metadata.namespace, name: p.metadata.name },
            { gracePeriodSeconds: 0 },
          ),
        ),
      ),
    );
    return left.length === 0 ? true : undefined;
  });
}

/** Resolves once every running informer's cache equals the server's current list of its kind. */
export async function informersCaughtUp(client: KubeClusterClient, kinds: readonly Kind[]): Promise<void> {
  await eventually('informers to catch up', async () => {
    for (const kind of kinds) {
      const inf = client.informerOf(kind);
      if (!inf) continue;
      const server = await client.listFromServer(kind);
      const cached = inf.cached();
      if (cached.size !== server.length) return undefined;
      for (const o of server)
        if (
          cached.get(`${o.metadata.namespace ?? ''}/${o.metadata.name}`)?.metadata.resourceVersion !==
          o.metadata.resourceVersion
        )
          return undefined;
    }
    return true;
  });
}

const ALL_KINDS: readonly Kind[] = [
  'NodePool',
  'NodeClaim',
  'Node',
  'Pod',
  'PodDisruptionBudget',
  'ConfigMap',
  'ReplicaSet',
];

/** What the cluster's controllers still have to do in the namespace, or undefined when nothing. */
async function pendingWork(client: KubeClusterClient, ns: string, prefix: string): Promise<string | undefined> {
  for (const rs of await client.listFromServer<
    KubeObject & { spec: { replicas?: number }; status?: { observedGeneration?: number; replicas?: number } }
  >('ReplicaSet', ns)) {
    if (
      (rs.status?.observedGeneration ?? 0) < (rs.metadata.generation ?? 1) ||
      (rs.status?.replicas ?? 0) !== (rs.spec.replicas ?? 1)
    )
      return `ReplicaSet ${rs.metadata.name}`;
  }
  for (const pdb of await client.listFromServer<KubeObject & { status?: { observedGeneration?: number } }>(
    'PodDisruptionBudget',
    ns,
  )) {
    if ((pdb.status?.observedGeneration ?? 0) < (pdb.metadata.generation ?? 1))
      return `PodDisruptionBudget ${pdb.metadata.name}`;
  }
  // The garbage collector: objects whose every owner is gone must be deleting or gone.
  const objects = [
    ...(
      await Promise.all((['Pod', 'ConfigMap', 'ReplicaSet'] as const).map((k) => client.listFromServer(k, ns)))
    ).flat(),
    // This setup's machines: named with its prefix, or in one of its NodePools (Nodes are named by address).
    ...(await Promise.all((['Node', 'NodeClaim'] as const).map((k) => client.listFromServer(k))))
      .flat()
      .filter(
        (o) => o.metadata.name.startsWith(prefix) || o.metadata.labels?.['karpenter.sh/nodepool']?.startsWith(prefix),
      ),
  ];
  const uids = new Set(objects.map((o) => o.metadata.uid));
  for (const o of objects) {
    const refs = o.metadata.ownerReferences ?? [];
    if (refs.length && !o.metadata.deletionTimestamp && refs.every((r) => !uids.has(r.uid) && r.kind !== 'NodePool'))
      return `orphan ${o.kind} ${o.metadata.name}`;
  }
  return undefined;
}

const fingerprint = async (client: KubeClusterClient, ns: string): Promise<string> =>
  (
    await Promise.all(
      (['Pod', 'PodDisruptionBudget', 'ReplicaSet', 'ConfigMap'] as const).map((k) => client.listFromServer(k, ns)),
    )
  )
    .flat()
    .map((o) => `${o.kind}/${o.metadata.name}@${o.metadata.resourceVersion}`)
    .join(',');

/**
 * Waits until the controllers have nothing left to do in `ns` and the namespace has been quiet
 * for a moment (the disruption controller recomputes PDB status after pod changes without a
 * generation to compare), then until the informers have delivered everything.
 */
export async function settle(client: KubeClusterClient, ns: string, prefix: string): Promise<void> {
  let last = '';
  let quiet = 0;
  await eventually(`controllers in ${ns} to settle`, async () => {
    const pending = await pendingWork(client, ns, prefix);
    if (pending) throw new Error(`waiting for ${pending}`);
    const now = await fingerprint(client, ns);
    quiet = now === last ? quiet + 1 : 0;
    last = now;
    return quiet >= 2 ? true : undefined;
  });
  await informersCaughtUp(client, ALL_KINDS);
}

export async function bindAndRun(
  client: ClusterClient & { rest: KubeClusterClient['rest'] },
  namespace: string,
  name: string,
  nodeName: string,
): Promise<Pod> {
  const current = await client.get<Pod>({ kind: 'Pod', namespace, name });
  if (!current?.spec.nodeName) {
    await client.rest.request({
      verb: 'POST',
      path: `/api/v1/namespaces/${namespace}/pods/${name}/binding`,
      body: {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name, namespace },
        target: { apiVersion: 'v1', kind: 'Node', name: nodeName },
      },
    });
  }
  return client.patch<Pod>(
    { kind: 'Pod', namespace, name },
    {
      status: {
        phase: 'Running',
        startTime: new Date().toISOString(),
        conditions: [{ type: 'Ready', status: 'True' }],
      },
    },
  );
}

/**
 * The kube backend; with `cachedReads` (as `kpol run` reads) the harness reads and writes
 * through a client that answers lists from its informers.
 */
const kubeBackendOf = (name: string, cachedReads: boolean): Backend => ({
  name,
  async setup(): Promise<Harness> {
    const shared = await kubeClient();
    const id = randomBytes(3).toString('hex');
    const ns = `kpol-a-${id}`;
    await createNamespace(shared, ns);
    await createNamespace(shared, `${ns}-other`);
    const client = cachedReads ? cachedClient() : shared;
    await client.start(ALL_KINDS);
    const wrapped = imagingClient(client);
    return {
      client: wrapped,
      ns,
      prefix: `${id}-`,
      now: () => Date.now(),
      // Server timestamps are whole seconds, taken while the request is in flight.
      toleranceMs: 2_000,
      // The in-memory server has no scheduler: neither may kube-scheduler touch these pods.
      createWithStatus: (obj) =>
        wrapped.create(
          obj.kind === 'Pod' ? { ...obj, spec: { schedulerName: 'kpol-conformance', ...(obj.spec as object) } } : obj,
        ),
      runPod: (namespace, name, nodeName) => bindAndRun(client, namespace, name, nodeName),
      settle: () => settle(client, ns, `${id}-`),
    };
  },
});

export const kubeBackend = kubeBackendOf('kube', false);
export const kubeCachedBackend = kubeBackendOf('kube, cached reads', true);

let cached: KubeClusterClient | undefined;

/** One client with cached reads per test file, as kubeClient() (its informers serve every test). */
function cachedClient(): KubeClusterClient {
  cached ??= newKubeClient({ cachedReads: true });
  return cached;
}
