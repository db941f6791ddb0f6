// SPDX-License-Identifier: Apache-2.0
// What the end-to-end tests share on the real control plane: objects applied with the built
// kubectl (as a user would), reads of one test's NodePool, NodeClaims, Nodes and pods through
// the raw API (cheap enough to sample every few hundred milliseconds), and a clean-up that
// leaves nothing of the test behind on the shared cluster.
import type { Node, NodeClaim, Pod } from '../../../src/core/cluster/types.js';
import type { ApiClient } from '../control-plane/api-client.js';
import { sharedControlPlane } from '../control-plane/inject.js';
import { kubectl, kubectlOk } from '../control-plane/kubectl.js';
import { installShippedCrds } from '../shipped-crds.js';

export const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';
export const DISRUPTED_TAINT = 'karpenter.sh/disrupted';

export type ControlPlane = ReturnType<typeof sharedControlPlane>;

export async function apply(cp: ControlPlane, yaml: string): Promise<void> {
  await kubectlOk(cp.kubeconfigPath, ['apply', '-f', '-'], yaml);
}

/** The shipped CRDs (idempotent, as `kubectl apply -f deploy/crds` is) and the test's namespace. */
export async function prepare(cp: ControlPlane, ns: string): Promise<void> {
  await installShippedCrds(cp.kubeconfigPath);
  await kubectlOk(cp.kubeconfigPath, ['create', 'namespace', ns]);
}

/**
 * A NodePool of m5.large on-demand machines whose Nodes carry `kpol.dev/e2e: <pool>` (the
 * test's pods select it) and `kpol.dev/rev: <rev>`: changing `rev` changes the template, so
 * every existing NodeClaim drifts.
 */
export function nodePool(pool: string, rev: string): string {
  return `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: ${pool} }
spec:
  template:
    metadata:
      labels: { kpol.dev/e2e: ${pool}, kpol.dev/rev: "${rev}" }
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
      expireAfter: Never
      requirements:
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: node.kubernetes.io/instance-type, operator: In, values: [m5.large] }
`;
}

/** A policy ConfigMap (label kpol.dev/policy) in the namespace kpol run watches. */
export function policyConfigMap(ns: string, name: string, kpol: string): string {
  const body = kpol
    .trim()
    .split('\n')
    .map((l) => `    ${l.trim()}`)
    .join('\n');
  return `
apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: ${ns}
  labels: { kpol.dev/policy: "true" }
data:
  policy.kpol: |
${body}
`;
}

/**
 * The drift scenario three e2e files share: the namespace, NodePool `pool` (template revision 1)
 * and a policy ConfigMap allowing one drifted node at a time (changing the template to another
 * revision then drifts every node).
 */
export async function driftOneAtATime(cp: ControlPlane, ns: string, pool: string): Promise<void> {
  await prepare(cp, ns);
  await apply(cp, nodePool(pool, '1'));
  const policy = `
      policy drift-one for nodepool ${pool} {
        consolidate when empty after 10m
        budget 1 for Drifted
      }`;
  await apply(cp, policyConfigMap(ns, 'drift-policy', policy));
}

export interface DeploymentOptions {
  /** Pod annotations (e.g. karpenter.sh/do-not-disrupt). */
  annotations?: Record<string, string>;
  /** The pods' terminationGracePeriodSeconds. Default 1: drains take seconds, not the 30 s default. */
  graceSeconds?: number;
}

/** A Deployment of `replicas` pods on the pool's Nodes, each asking for `cpu` (an m5.large has 2 CPUs). */
export function deployment(
  ns: string,
  name: string,
  pool: string,
  replicas: number,
  cpu: string,
  o: DeploymentOptions = {},
): string {
  const ann =
    o.annotations && Object.keys(o.annotations).length ? `\n      annotations: ${JSON.stringify(o.annotations)}` : '';
  return `
apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name}, namespace: ${ns} }
spec:
  replicas: ${replicas}
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata:
      labels: { app: ${name} }${ann}
    spec:
      terminationGracePeriodSeconds: ${o.graceSeconds ?? 1}
      nodeSelector: { kpol.dev/e2e: ${pool} }
      containers:
        - { name: main, image: ${PAUSE_IMAGE}, resources: { requests: { cpu: "${cpu}", memory: 256Mi } } }
`;
}

export interface PoolState {
  nodeClaims: NodeClaim[];
  nodes: Node[];
  pods: Pod[];
}

const items = async <T>(api: ApiClient, path: string): Promise<T[]> => {
  const r = await api.get(path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
  return r.body.items as T[];
};

/** The pool's NodeClaims and Nodes (by the karpenter.sh/nodepool label) and the namespace's pods. */
export async function poolState(cp: ControlPlane, pool: string, ns: string): Promise<PoolState> {
  const sel = `labelSelector=${encodeURIComponent(`karpenter.sh/nodepool=${pool}`)}`;
  const [nodeClaims, nodes, pods] = await Promise.all([
    items<NodeClaim>(cp.api, `/apis/karpenter.sh/v1/nodeclaims?${sel}`),
    items<Node>(cp.api, `/api/v1/nodes?${sel}`),
    items<Pod>(cp.api, `/api/v1/namespaces/${ns}/pods`),
  ]);
  return { nodeClaims, nodes, pods };
}

const instanceTerminating = (nc: NodeClaim | undefined): boolean =>
  nc?.status?.conditions?.some((c) => c.type === 'InstanceTerminating' && c.status === 'True') ?? false;

/**
 * Nodes that count against a disruption budget, as Karpenter counts them (KARPENTER.md#budget-counting):
 * tainted karpenter.sh/disrupted or being deleted — except once the NodeClaim says
 * InstanceTerminating (drained, machine going): Karpenter stops counting those, so the next node
 * may start while the last one's objects are still on their way out.
 */
export function disruptingNodes(s: PoolState): string[] {
  const claimOf = new Map(s.nodeClaims.map((nc) => [nc.status?.nodeName, nc]));
  return s.nodes
    .filter((n) => {
      const nc = claimOf.get(n.metadata.name);
      if (instanceTerminating(nc)) return false;
      return (
        nc?.metadata.deletionTimestamp ||
        n.metadata.deletionTimestamp ||
        (n.spec.taints ?? []).some((t) => t.key === DISRUPTED_TAINT)
      );
    })
    .map((n) => n.metadata.name);
}

/** Why each named node counts as disrupting, for assertion messages. */
export function describeDisrupting(s: PoolState, names: string[]): string {
  return names
    .map((name) => {
      const n = s.nodes.find((x) => x.metadata.name === name);
      const nc = s.nodeClaims.find((x) => x.status?.nodeName === name);
      const why = [
        (n?.spec.taints ?? []).some((t) => t.key === DISRUPTED_TAINT) && 'tainted',
        n?.metadata.deletionTimestamp && `node deleting since ${n.metadata.deletionTimestamp}`,
        nc === undefined
          ? 'no NodeClaim'
          : nc.metadata.deletionTimestamp &&
            `NodeClaim ${nc.metadata.name} deleting since ${nc.metadata.deletionTimestamp}`,
        instanceTerminating(nc) && 'InstanceTerminating',
        `pods ${s.pods.filter((p) => p.spec.nodeName === name).length}`,
      ].filter(Boolean);
      return `${name} (${why.join(', ')})`;
    })
    .join('; ');
}

/** Pods of `app` that are Running and Ready on a Node. */
export const readyPods = (s: PoolState, app: string): Pod[] =>
  s.pods.filter(
    (p) =>
      p.metadata.labels?.app === app &&
      !p.metadata.deletionTimestamp &&
      p.spec.nodeName &&
      p.status?.phase === 'Running' &&
      p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  );

export interface ClusterEvent {
  message: string;
  involvedObject: { kind: string; name: string; namespace?: string };
  source?: { component?: string };
  reportingComponent?: string;
}

/** The cluster's Events with this reason (every namespace). */
export async function events(cp: ControlPlane, reason: string): Promise<ClusterEvent[]> {
  return items(cp.api, `/api/v1/events?fieldSelector=${encodeURIComponent(`reason=${reason}`)}`);
}

/**
 * Removes everything a test made: its namespace (pods force-deleted, no kubelet finishes them
 * once kpol is gone), its NodePool, and its NodeClaims and Nodes with their finalizers stripped.
 */
export async function cleanup(cp: ControlPlane, ns: string, pool: string): Promise<void> {
  const k = (args: string[]) => kubectl(cp.kubeconfigPath, args);
  await k(['delete', 'nodepool', pool, '--ignore-not-found', '--wait=false']);
  await k(['-n', ns, 'delete', 'deployments,replicasets,pdb', '--all', '--wait=false']);
  await k(['-n', ns, 'delete', 'pods', '--all', '--force', '--grace-period=0']);
  for (const kind of ['nodeclaims', 'nodes']) {
    const names = (await k(['get', kind, '-l', `karpenter.sh/nodepool=${pool}`, '-o', 'name'])).stdout
      .split('\n')
      .filter(Boolean);
    for (const name of names) {
      await k(['patch', name, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
      await k(['delete', name, '--ignore-not-found', '--wait=false']);
    }
  }
  await k(['delete', 'namespace', ns, '--ignore-not-found', '--wait=false']);
}

/**
 * Reads the pool's state every `everyMs` and hands each sample to `check` (which asserts what
 * must hold at every observation) until `done` returns a value; that value is returned. The
 * deadline only guards against hanging: it is not a speed assertion.
 */
export async function sampleUntil<T>(
  what: string,
  read: () => Promise<PoolState>,
  check: (s: PoolState) => void,
  done: (s: PoolState) => T | undefined,
  timeoutMs: number,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: PoolState | undefined;
  for (;;) {
    last = await read();
    check(last);
    const v = done(last);
    if (v !== undefined) return v;
    if (Date.now() > deadline) {
      const summary = {
        nodeClaims: last.nodeClaims.map(
          (nc) =>
            `${nc.metadata.name}${nc.metadata.deletionTimestamp ? ' (deleting)' : ''} → ${nc.status?.nodeName ?? '-'}`,
        ),
        pods: last.pods.map((p) => `${p.metadata.name}@${p.spec.nodeName ?? '-'}:${p.status?.phase}`),
      };
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last state ${JSON.stringify(summary)}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
