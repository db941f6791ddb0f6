// SPDX-License-Identifier: Apache-2.0
// The object store: one map per kind keyed by namespace/name, and the cluster-wide
// resourceVersion counter. Stored objects are never mutated in place: every write stores a new
// object, so a copy taken for a watch event or a reader stays what it was.
import type { Kind, WatchEvent } from '../client.js';
import type { KubeObject } from '../types.js';
import { KIND_NAMES } from './kinds.js';

const keyOf = (namespace: string | undefined, name: string): string => `${namespace ?? ''}/${name}`;

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const byNamespaceAndName = (a: KubeObject, b: KubeObject): number =>
  compare(a.metadata.namespace ?? '', b.metadata.namespace ?? '') || compare(a.metadata.name, b.metadata.name);

export class ObjectStore {
  private readonly kinds = new Map<Kind, Map<string, KubeObject>>(KIND_NAMES.map((k) => [k, new Map()]));
  /** Owner `kind/name` → the objects that reference it, so cascade does not scan the store. */
  private readonly dependents = new Map<string, Set<KubeObject>>();
  private version = 0;
  private uids = 0;

  constructor(private readonly onChange: (type: WatchEvent['type'], object: KubeObject) => void) {}

  get(kind: Kind, name: string, namespace: string | undefined): KubeObject | undefined {
    return this.kinds.get(kind)!.get(keyOf(namespace, name));
  }

  /** Sorted by namespace, then name, as etcd returns them. */
  list(kind: Kind, namespace?: string): KubeObject[] {
    const all = [...this.kinds.get(kind)!.values()];
    return (namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace)).sort(byNamespaceAndName);
  }

  /** Stored objects with an ownerReference to an owner of this kind and name (any uid, any namespace). */
  dependentsOf(kind: string, name: string): KubeObject[] {
    return [...(this.dependents.get(`${kind}/${name}`) ?? [])].sort(byNamespaceAndName);
  }

  count(kind: Kind): number {
    return this.kinds.get(kind)!.size;
  }

  resourceVersion(): string {
    return String(this.version);
  }

  /** Deterministic UUID-shaped uids, so simulation timelines are reproducible. */
  nextUid(): string {
    this.uids++;
    return `00000000-0000-4000-8000-${this.uids.toString(16).padStart(12, '0')}`;
  }

  /** Stores `obj` (the store owns it from now on) with the next resourceVersion and notifies. */
  put(obj: KubeObject, type: 'ADDED' | 'MODIFIED'): KubeObject {
    obj.metadata.resourceVersion = String(++this.version);
    const objects = this.kinds.get(obj.kind as Kind)!;
    const key = keyOf(obj.metadata.namespace, obj.metadata.name);
    const previous = objects.get(key);
    if (previous) this.unindex(previous);
    objects.set(key, obj);
    this.index(obj);
    this.onChange(type, obj);
    return obj;
  }

  /** Removes `obj`; the DELETED event carries the deletion's resourceVersion, as etcd's does. */
  remove(obj: KubeObject): KubeObject {
    const objects = this.kinds.get(obj.kind as Kind)!;
    const key = keyOf(obj.metadata.namespace, obj.metadata.name);
    const stored = objects.get(key);
    if (stored) this.unindex(stored);
    objects.delete(key);
    const gone = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.version) } };
    this.onChange('DELETED', gone);
    return gone;
  }

  private index(obj: KubeObject): void {
    for (const r of obj.metadata.ownerReferences ?? []) {
      const key = `${r.kind}/${r.name}`;
      let set = this.dependents.get(key);
      if (!set) this.dependents.set(key, (set = new Set()));
      set.add(obj);
    }
  }

  private unindex(obj: KubeObject): void {
    for (const r of obj.metadata.ownerReferences ?? []) {
      const key = `${r.kind}/${r.name}`;
      const set = this.dependents.get(key);
      set?.delete(obj);
      if (set?.size === 0) this.dependents.delete(key);
    }
  }
}

/** What the write paths share: the store and the injected clock. */
export interface ServerContext {
  readonly store: ObjectStore;
  readonly clock: import('../../clock.js').Clock;
}
