// SPDX-License-Identifier: Apache-2.0
// Keeps spec.replicas pods per ReplicaSet (kube-controller-manager's replicaset controller), so
// evicted and deleted pods come back as Pending pods for the scheduler to place.
import { isApiError, type ClusterClient } from '../../core/cluster/client.js';
import type { ReplicaSet } from '../../core/cluster/memory/api-fields.js';
import { deepEqual } from '../../core/cluster/memory/deep.js';
import { isActive, isPodReady } from '../../core/cluster/state.js';
import { ANNOTATION_POD_DELETION_COST, type Pod } from '../../core/cluster/types.js';
import { DirtyNamespaces } from './dirty-namespaces.js';
import { controllingReplicaSet, DirtyReplicaSets } from './dirty-replica-sets.js';
import { NameGenerator } from './pod-names.js';
import { runOnChanges, type ChangeLoop } from './run-on-changes.js';

export interface ReplicaSetControllerOptions {
  /** Seeds generated pod names; the same seed and history give the same names. */
  seed?: number;
  /**
   * The client delivers a write's watch events before the writer resumes (the in-memory cluster):
   * a pass then syncs only the ReplicaSets whose object or pods changed (dirty-replica-sets.ts).
   */
  promptWatches?: boolean;
}

export class ReplicaSetController {
  private readonly names: NameGenerator;
  private readonly changes: DirtyNamespaces;
  /** promptWatches only: the ReplicaSets a pass must sync. */
  private readonly dirty: DirtyReplicaSets | undefined;
  private useWatches: boolean;

  constructor(
    private readonly client: ClusterClient,
    options: ReplicaSetControllerOptions = {},
  ) {
    this.names = new NameGenerator(options.seed ?? 0);
    this.changes = new DirtyNamespaces(client, ['Pod', 'ReplicaSet']);
    this.dirty = options.promptWatches ? new DirtyReplicaSets(client) : undefined;
    this.useWatches = options.promptWatches === true;
  }

  /**
   * Whether promptWatches are used (default: when given). Off, a pass syncs every ReplicaSet of
   * every namespace that changed: the reference the simulated-timeline test compares with.
   */
  get incremental(): boolean {
    return this.useWatches;
  }

  set incremental(on: boolean) {
    this.useWatches = on && this.dirty !== undefined;
  }

  /**
   * One pass over the namespaces in which a pod or ReplicaSet changed since the last (a
   * ReplicaSet's result depends on nothing else); skipped when there are none. With
   * promptWatches, only the ReplicaSets of those namespaces whose object or pods changed: the
   * others would write nothing.
   */
  async reconcile(): Promise<void> {
    await this.changes.ifChanged(async (namespaces) => {
      // Taken every pass (also when not used), so the marks never pile up.
      const marked = this.dirty?.take();
      if (namespaces === undefined || marked === undefined || !this.useWatches) {
        if (namespaces === undefined) return this.sync();
        for (const ns of namespaces) await this.sync(ns);
        return;
      }
      for (const ns of namespaces) {
        const only = marked.get(ns);
        if (only !== undefined) await this.sync(ns, only);
      }
    });
  }

  /** Syncs the ReplicaSets of `namespace` (all namespaces when undefined), or only those named in `only`. */
  private async sync(namespace?: string, only?: ReadonlySet<string>): Promise<void> {
    const replicaSets = await this.client.list<ReplicaSet>('ReplicaSet', namespace);
    // Marks for ReplicaSets that do not exist (a pod whose owner is gone, or never was) sync nothing:
    // the namespace's pods are not read for them.
    if (only !== undefined && !replicaSets.some((rs) => only.has(rs.metadata.name))) return;
    const byOwner = new Map<string, Pod[]>();
    // Marked ReplicaSets read their own pods from the watch index (the order does not matter: a
    // sync counts them and orders a surplus completely); a full sync lists the namespace.
    const indexed = only !== undefined && this.useWatches ? this.dirty : undefined;
    const owned = [...(only ?? [])].map((name) => [name, indexed?.podsOwnedBy(namespace, name)] as const);
    if (owned.length > 0 && owned.every(([, pods]) => pods !== undefined)) {
      for (const [name, pods] of owned) byOwner.set(`${namespace}/${name}`, pods ?? []);
    } else {
      const pods = await this.client.list<Pod>('Pod', namespace);
      if (only === undefined) this.dirty?.seen(pods, namespace === undefined);
      if (replicaSets.length === 0) return;
      for (const pod of pods) {
        const owner = controllingReplicaSet(pod);
        if (owner === undefined || (only !== undefined && !only.has(owner))) continue;
        const key = `${pod.metadata.namespace}/${owner}`;
        const list = byOwner.get(key);
        if (list) list.push(pod);
        else byOwner.set(key, [pod]);
      }
    }
    for (const rs of replicaSets) {
      if (only !== undefined && !only.has(rs.metadata.name)) continue;
      const candidates = byOwner.get(`${rs.metadata.namespace}/${rs.metadata.name}`) ?? [];
      // Terminating pods are not replicas: a replacement starts as soon as one begins to stop.
      let active = candidates.filter((p) => isControlledBy(p, rs) && isActive(p));
      let created = 0;
      if (rs.metadata.deletionTimestamp === undefined) {
        const diff = (rs.spec.replicas ?? 1) - active.length;
        for (let i = 0; i < diff; i++) await this.createPod(rs);
        created = Math.max(diff, 0);
        if (diff < 0) {
          const surplus = new Set([...active].sort(deletionOrder).slice(0, -diff));
          for (const pod of surplus) await this.deletePod(pod);
          active = active.filter((p) => !surplus.has(p));
        }
      }
      await this.writeStatus(rs, active.length + created, active.filter(isPodReady).length);
    }
  }

  /** Also reconciles whenever pods or ReplicaSets change. */
  start(onError?: (e: unknown) => void): ChangeLoop {
    return runOnChanges(this.client, ['Pod', 'ReplicaSet'], () => this.reconcile(), onError);
  }

  private async createPod(rs: ReplicaSet): Promise<void> {
    const template = rs.spec.template ?? {};
    // The template's parts are shared, not copied: the server keeps frozen parts as they are.
    const { nodeName: _bound, ...spec } = template.spec ?? {};
    for (;;) {
      const pod: Pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: this.names.next(`${rs.metadata.name}-`),
          namespace: rs.metadata.namespace,
          ...(template.metadata?.labels ? { labels: template.metadata.labels } : {}),
          ...(template.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: rs.metadata.name,
              uid: rs.metadata.uid,
              controller: true,
            },
          ],
        },
        spec,
        status: { phase: 'Pending' },
      };
      try {
        await this.client.create(pod);
        return;
      } catch (e) {
        // A generated name can collide with a pod someone else named; draw another.
        if (!isApiError(e, 409)) throw e;
      }
    }
  }

  private async deletePod(pod: Pod): Promise<void> {
    try {
      await this.client.delete(
        { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name },
        { preconditions: { uid: pod.metadata.uid } },
      );
    } catch (e) {
      if (!isApiError(e, 404) && !isApiError(e, 409)) throw e;
    }
  }

  /**
   * status as it stands after this reconcile acted (upstream writes what it saw before acting
   * and catches up on the next sync; a simulation tick should not have to wait for that).
   */
  private async writeStatus(rs: ReplicaSet, replicas: number, readyReplicas: number): Promise<void> {
    const status = { replicas, readyReplicas, observedGeneration: rs.metadata.generation ?? 1 };
    if (deepEqual(status, rs.status ?? {})) return;
    try {
      await this.client.update({ ...rs, status });
    } catch (e) {
      if (!isApiError(e, 404) && !isApiError(e, 409)) throw e;
    }
  }
}

export function isControlledBy(pod: Pod, rs: ReplicaSet): boolean {
  const ref = pod.metadata.ownerReferences?.find((r) => r.controller === true);
  return (
    ref !== undefined &&
    ref.kind === 'ReplicaSet' &&
    ref.name === rs.metadata.name &&
    pod.metadata.namespace === rs.metadata.namespace &&
    (ref.uid === undefined || ref.uid === rs.metadata.uid)
  );
}

/**
 * Which surplus pod goes first (controller.ActivePodsWithRanks, without the co-location and
 * restart terms): unscheduled, then Pending, then not Ready, then lower deletion cost, then newest.
 */
function deletionOrder(a: Pod, b: Pod): number {
  const unscheduled = (p: Pod): number => (p.spec.nodeName ? 1 : 0);
  const phase = (p: Pod): number =>
    (({ Pending: 0, Unknown: 1, Running: 2 }) as Record<string, number>)[p.status?.phase ?? 'Pending'] ?? 0;
  const ready = (p: Pod): number => (isPodReady(p) ? 1 : 0);
  const cost = (p: Pod): number => Number(p.metadata.annotations?.[ANNOTATION_POD_DELETION_COST] ?? 0) || 0;
  const created = (p: Pod): number => Date.parse(p.metadata.creationTimestamp ?? '') || 0;
  return (
    unscheduled(a) - unscheduled(b) ||
    phase(a) - phase(b) ||
    ready(a) - ready(b) ||
    cost(a) - cost(b) ||
    created(b) - created(a) ||
    b.metadata.name.localeCompare(a.metadata.name)
  );
}
