// SPDX-License-Identifier: Apache-2.0
// The ReplicaSets whose replicas or status may need a write since the replicaset controller's last
// pass, from watches: one whose own object changed, or a pod it controls (or controlled) was
// added, changed or deleted. A ReplicaSet's sync reads nothing else, and one left unchanged since
// a sync that wrote nothing would write nothing again; so a busy namespace's pass syncs the few
// ReplicaSets a drain touched, not all of them. DirtyNamespaces is the per-namespace version.
//
// It trusts watch events to arrive before the next pass reads, as the in-memory cluster delivers
// them (the controller uses it only when told the client does).
import type { ClusterClient } from '../../core/cluster/client.js';
import type { Pod } from '../../core/cluster/types.js';

/** The name of the ReplicaSet a pod's controller reference names, if any. */
export function controllingReplicaSet(pod: Pod): string | undefined {
  return pod.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === 'ReplicaSet')?.name;
}

export class DirtyReplicaSets {
  /** Namespace → ReplicaSet names marked since the last take(). */
  private marked = new Map<string, Set<string>>();
  /**
   * `namespace/ReplicaSet name` (the pod's namespace as it stands) → pod name → the latest object
   * of each pod it controls; complete once a pass listed every pod (`seen` without a namespace).
   */
  private readonly owned = new Map<string, Map<string, Pod>>();
  private complete = false;

  constructor(client: ClusterClient) {
    client.watch('Pod', (e) => {
      const pod = e.object as Pod;
      const ns = pod.metadata.namespace ?? 'default';
      // The owner the pod had: a change carries the object before it, a deletion the last one.
      // (No per-pod record of it: 150,000 pods made that map ~15 MB of the simulated cluster.)
      const was =
        e.type === 'ADDED'
          ? undefined
          : e.type === 'DELETED'
            ? controllingReplicaSet(pod)
            : this.ownerBefore(e.old as Pod | undefined, pod);
      const owner = e.type === 'DELETED' ? undefined : controllingReplicaSet(pod);
      if (was !== undefined) this.disown(pod, was);
      if (owner !== undefined) this.own(pod, owner);
      if (was !== undefined && was !== owner) this.mark(ns, was);
      if (owner !== undefined) this.mark(ns, owner);
    });
    client.watch('ReplicaSet', (e) => this.mark(e.object.metadata.namespace ?? 'default', e.object.metadata.name));
  }

  /**
   * The owner of a changed pod before the change: from the object before it, or, from a client
   * that does not give that, the ReplicaSet that holds the pod here (a search of every one).
   */
  private ownerBefore(old: Pod | undefined, pod: Pod): string | undefined {
    if (old !== undefined) return controllingReplicaSet(old);
    const prefix = `${pod.metadata.namespace}/`;
    for (const [key, pods] of this.owned)
      if (key.startsWith(prefix) && pods.has(pod.metadata.name)) return key.slice(prefix.length);
    return undefined;
  }

  /** The marks since the last call, and a fresh set for the pass's own writes. */
  take(): ReadonlyMap<string, ReadonlySet<string>> {
    const out = this.marked;
    this.marked = new Map();
    return out;
  }

  /**
   * Files listed pods (a full pass) under their owners, so a later change of owner marks the old
   * one. A list of every namespace's pods (`everyNamespace`) also makes podsOwnedBy complete.
   */
  seen(pods: readonly Pod[], everyNamespace = false): void {
    if (everyNamespace) this.owned.clear();
    for (const pod of pods) {
      const owner = controllingReplicaSet(pod);
      if (owner !== undefined) this.own(pod, owner);
    }
    if (everyNamespace) this.complete = true;
  }

  /**
   * The pods controlled (by name) by ReplicaSet `name` of `namespace`, as of the latest watch event,
   * in no particular order; undefined until a pass listed every pod.
   */
  podsOwnedBy(namespace: string | undefined, name: string): Pod[] | undefined {
    if (!this.complete) return undefined;
    return [...(this.owned.get(`${namespace}/${name}`)?.values() ?? [])];
  }

  private own(pod: Pod, owner: string): void {
    const key = `${pod.metadata.namespace}/${owner}`;
    let pods = this.owned.get(key);
    if (pods === undefined) this.owned.set(key, (pods = new Map()));
    pods.set(pod.metadata.name, pod);
  }

  private disown(pod: Pod, owner: string): void {
    const key = `${pod.metadata.namespace}/${owner}`;
    const pods = this.owned.get(key);
    pods?.delete(pod.metadata.name);
    if (pods?.size === 0) this.owned.delete(key);
  }

  private mark(ns: string, name: string): void {
    const names = this.marked.get(ns);
    if (names) names.add(name);
    else this.marked.set(ns, new Set([name]));
  }
}
