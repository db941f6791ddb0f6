// SPDX-License-Identifier: Apache-2.0
// The one place where another cloud provider's NodeClaims are kept from kpol's controllers: the
// Runtime hands every controller (node agent, interruption, provisioner, expiration, disruption
// and its queue, termination, pod events) this client, which leaves NodeClaims that are not
// kpol's (src/world/cloud/ownership.ts) out of every list and get. A controller cannot launch, adopt,
// disrupt, expire or finalize what it never reads. Writes and watches pass through: the
// controllers only write NodeClaims they have read, and a watch event only makes them read again.
import type * as api from '../../core/cluster/client.js';
import type { KubeObject, NodeClaim } from '../../core/cluster/types.js';

export class OwnedNodeClaims implements api.ClusterClient {
  private readonly seen = new Set<string>();

  /** `onIgnored` is called once per NodeClaim name the first time it is left out. */
  constructor(
    readonly inner: api.ClusterClient,
    private readonly owns: (nc: NodeClaim) => boolean,
    private readonly onIgnored?: (nc: NodeClaim) => void,
  ) {}

  /** Whether list() and get() return `o` (the ClusterView filters watch events with it). */
  keeps(o: KubeObject): boolean {
    if (o.kind !== 'NodeClaim' || this.owns(o as NodeClaim)) return true;
    if (!this.seen.has(o.metadata.name)) {
      this.seen.add(o.metadata.name);
      this.onIgnored?.(o as NodeClaim);
    }
    return false;
  }

  async list<T extends KubeObject>(kind: api.Kind, namespace?: string): Promise<T[]> {
    const all = await this.inner.list<T>(kind, namespace);
    return kind === 'NodeClaim' ? all.filter((o) => this.keeps(o)) : all;
  }

  async get<T extends KubeObject>(key: api.ObjectKey): Promise<T | undefined> {
    const o = await this.inner.get<T>(key);
    return o === undefined || this.keeps(o) ? o : undefined;
  }

  create<T extends KubeObject>(obj: T): Promise<T> {
    return this.inner.create(obj);
  }

  update<T extends KubeObject>(obj: T): Promise<T> {
    return this.inner.update(obj);
  }

  patch<T extends KubeObject>(
    key: api.ObjectKey,
    patch: api.MergePatch,
    preconditions?: api.Preconditions,
  ): Promise<T> {
    return this.inner.patch<T>(key, patch, preconditions);
  }

  delete(key: api.ObjectKey, options?: api.DeleteOptions): Promise<void> {
    return this.inner.delete(key, options);
  }

  evict(namespace: string, name: string, preconditions?: api.Preconditions): Promise<void> {
    return this.inner.evict(namespace, name, preconditions);
  }

  watch(kind: api.Kind, handler: (e: api.WatchEvent) => void): { stop(): void } {
    return this.inner.watch(kind, handler);
  }
}
