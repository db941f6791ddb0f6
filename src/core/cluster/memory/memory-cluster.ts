// SPDX-License-Identifier: Apache-2.0
// The in-memory API server: a ClusterClient with the real server's semantics (see client.ts),
// used by `kpol simulate`, the scenario suites and the browser playground. Objects going in are
// copied; objects coming out are the stored ones, deeply frozen, so reads copy nothing and
// callers can only change the cluster through the API.
import type { Clock } from '../../clock.js';
import type * as api from '../client.js';
import type { KubeObject } from '../types.js';
import { withServerDefaults } from './defaults.js';
import { deleteObject } from './deletion.js';
import { alreadyExists, notFound } from './errors.js';
import { evictPod } from './eviction.js';
import { KIND_NAMES, kindInfo, scopeNamespace } from './kinds.js';
import { ObjectStore, type ServerContext } from './store.js';
import { WatchHub } from './watch-hub.js';
import { adopt, createObject, patchObject, updateObject } from './writes.js';
import { rfc3339 } from './timestamps.js';

export interface MemoryClusterOptions {
  /** Receives exceptions thrown by watch handlers; by default they are rethrown asynchronously. */
  onWatchError?: (error: unknown) => void;
}

export class MemoryCluster implements api.ClusterClient {
  private readonly hub: WatchHub;
  private readonly ctx: ServerContext;

  /**
   * `initial` objects (a snapshot) keep their uid, timestamps, generation and finalizers; they
   * get fresh resourceVersions and the API server's defaults for what they leave out.
   * Duplicates and unknown kinds throw, as a create would.
   */
  constructor(clock: Clock, initial: Iterable<KubeObject> = [], options: MemoryClusterOptions = {}) {
    this.hub = new WatchHub(options.onWatchError);
    const store = new ObjectStore((type, obj, old) => this.hub.emit(type, obj, old));
    this.ctx = { store, clock };
    for (const obj of initial) this.seed(obj);
  }

  private seed(input: KubeObject): void {
    // Defaulted as a create would be: a snapshot written by hand may leave out what a real
    // server always returns (a pod's terminationGracePeriodSeconds, a NodePool's budgets).
    const obj = withServerDefaults(adopt(input), undefined);
    const kind = obj.kind as api.Kind;
    if (this.ctx.store.get(kind, obj.metadata.name, obj.metadata.namespace))
      throw alreadyExists(kind, obj.metadata.name);
    obj.metadata.uid ||= this.ctx.store.nextUid();
    obj.metadata.creationTimestamp ||= rfc3339(this.ctx.clock.now());
    obj.metadata.generation ??= 1;
    this.ctx.store.put(obj, 'ADDED');
  }

  async list<T extends KubeObject>(kind: api.Kind, namespace?: string): Promise<T[]> {
    // A namespace means nothing for a cluster-scoped kind, as in the real API.
    const scoped = kindInfo(kind).namespaced ? namespace : undefined;
    return this.ctx.store.list(kind, scoped) as T[];
  }

  async get<T extends KubeObject>(key: api.ObjectKey): Promise<T | undefined> {
    const found = this.find(key);
    return found as T | undefined;
  }

  async create<T extends KubeObject>(obj: T): Promise<T> {
    return createObject(this.ctx, obj) as T;
  }

  async update<T extends KubeObject>(obj: T): Promise<T> {
    return updateObject(this.ctx, obj) as T;
  }

  async patch<T extends KubeObject>(
    key: api.ObjectKey,
    patch: api.MergePatch,
    preconditions?: api.Preconditions,
  ): Promise<T> {
    return patchObject(this.ctx, this.mustFind(key), patch, preconditions) as T;
  }

  async delete(key: api.ObjectKey, options?: api.DeleteOptions): Promise<void> {
    deleteObject(this.ctx, this.mustFind(key), options);
  }

  async evict(namespace: string, name: string, preconditions?: api.Preconditions): Promise<void> {
    evictPod(this.ctx, namespace || 'default', name, preconditions);
  }

  watch(kind: api.Kind, handler: (e: api.WatchEvent) => void): { stop(): void } {
    kindInfo(kind);
    return this.hub.watch(kind, handler);
  }

  /** Every stored object (frozen), by kind in KINDS order, then namespace and name: the timeline's snapshot. */
  objects(): KubeObject[] {
    return KIND_NAMES.flatMap((kind) => this.ctx.store.list(kind));
  }

  /** How many objects of each kind are stored, for the status page. */
  stats(): Record<api.Kind, number> {
    return Object.fromEntries(KIND_NAMES.map((kind) => [kind, this.ctx.store.count(kind)])) as Record<api.Kind, number>;
  }

  /** The cluster-wide resourceVersion of the latest write. */
  resourceVersion(): string {
    return this.ctx.store.resourceVersion();
  }

  /**
   * The resourceVersion of the latest write to an object of `kind` (0 when none since the
   * server started): a reader that saw the same number has seen every object of that kind.
   */
  kindVersion(kind: api.Kind): number {
    kindInfo(kind);
    return this.ctx.store.kindVersion(kind);
  }

  /** Resolves once every queued watch event has been delivered (tests, simulation ticks). */
  idle(): Promise<void> {
    return this.hub.idle();
  }

  private find(key: api.ObjectKey): KubeObject | undefined {
    kindInfo(key.kind);
    return this.ctx.store.get(key.kind, key.name, scopeNamespace(key.kind, key.namespace));
  }

  private mustFind(key: api.ObjectKey): KubeObject {
    const found = this.find(key);
    if (!found) throw notFound(key.kind, key.name);
    return found;
  }
}
