// SPDX-License-Identifier: Apache-2.0
// The object store: one map per kind keyed by namespace/name, the same objects in list order
// (so a list is one array copy, not a sort), and the cluster-wide resourceVersion counter,
// with the latest write per kind. Stored objects are deeply frozen and never replaced in place: every
// write stores a new object, so an object handed to a watcher or a reader stays what it was.
import type { Kind, WatchEvent } from '../client.js';
import type { KubeObject } from '../types.js';
import { deepFreeze } from './deep.js';
import { leanCopy, Sharing } from '../lean.js';
import { KIND_NAMES } from './kinds.js';
import { byNamespaceAndName, inNamespace, SortedObjects } from '../sorted-objects.js';

const keyOf = (namespace: string | undefined, name: string): string => `${namespace ?? ''}/${name}`;

export class ObjectStore {
  private readonly kinds = new Map<Kind, Map<string, KubeObject>>(KIND_NAMES.map((k) => [k, new Map()]));
  /** Per kind, the stored objects in list order; built on first list, then kept current. */
  private readonly sorted = new Map<Kind, SortedObjects>(
    KIND_NAMES.map((k) => [k, new SortedObjects(() => this.kinds.get(k)!)]),
  );
  /** Per kind, the resourceVersion of its latest write (0: never written). */
  private readonly kindVersions = new Map<Kind, number>(KIND_NAMES.map((k) => [k, 0]));
  /** Owner `kind/name` → the objects that reference it, so cascade does not scan the store. */
  private readonly dependents = new Map<string, Set<KubeObject>>();
  private version = 0;
  private uids = 0;
  /** Equal label sets, owner references, containers… of stored objects are one frozen object (lean.ts). */
  readonly sharing = new Sharing();

  constructor(
    private readonly onChange: (type: WatchEvent['type'], object: KubeObject, old: KubeObject | undefined) => void,
  ) {}

  get(kind: Kind, name: string, namespace: string | undefined): KubeObject | undefined {
    return this.kinds.get(kind)!.get(keyOf(namespace, name));
  }

  /** Sorted by namespace, then name, as etcd returns them; the array is the caller's, the objects are frozen. */
  list(kind: Kind, namespace?: string): KubeObject[] {
    return inNamespace(this.sorted.get(kind)!.read(), namespace);
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

  /** The resourceVersion of the latest write to any object of `kind` (0 when none since start). */
  kindVersion(kind: Kind): number {
    return this.kindVersions.get(kind)!;
  }

  /** Deterministic UUID-shaped uids, so simulation timelines are reproducible. */
  nextUid(): string {
    this.uids++;
    return `00000000-0000-4000-8000-${this.uids.toString(16).padStart(12, '0')}`;
  }

  /**
   * Stores `obj` with the next resourceVersion, deeply frozen, and notifies; returns the stored
   * object. `obj` may share frozen parts with stored objects; its other parts the store owns from now on.
   */
  put(obj: KubeObject, type: 'ADDED' | 'MODIFIED'): KubeObject {
    const kind = obj.kind as Kind;
    const version = ++this.version;
    this.kindVersions.set(kind, version);
    // A fresh copy, built key by key, rather than a spread of the caller's object: objects built
    // by spreads of frozen objects each get a hidden class of their own in V8, and a list of
    // 10,000 pods with 50+ shapes makes every read of them megamorphic (measured 10× slower).
    // Nothing is projected away: this store is the cluster, not a cache of it.
    const copy = leanCopy(obj, this.sharing, 'none');
    copy.metadata.resourceVersion = String(version);
    const stored = deepFreeze(copy);
    const objects = this.kinds.get(kind)!;
    const key = keyOf(stored.metadata.namespace, stored.metadata.name);
    const previous = objects.get(key);
    if (previous) this.unindex(previous);
    objects.set(key, stored);
    this.index(stored);
    if (previous) this.sorted.get(kind)!.replace(previous, stored);
    else this.sorted.get(kind)!.add(stored);
    this.onChange(type, stored, previous);
    return stored;
  }

  /** Removes `obj`; the DELETED event carries the deletion's resourceVersion, as etcd's does. */
  remove(obj: KubeObject): KubeObject {
    const kind = obj.kind as Kind;
    const objects = this.kinds.get(kind)!;
    const key = keyOf(obj.metadata.namespace, obj.metadata.name);
    const stored = objects.get(key);
    if (stored) {
      this.unindex(stored);
      this.sorted.get(kind)!.remove(stored);
    }
    objects.delete(key);
    const version = ++this.version;
    this.kindVersions.set(kind, version);
    const gone = deepFreeze({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(version) } });
    this.onChange('DELETED', gone, undefined);
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
