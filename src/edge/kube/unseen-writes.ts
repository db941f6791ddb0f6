// SPDX-License-Identifier: Apache-2.0
// Read-your-writes for reads served from an informer's cache. A write's answer comes back
// before its watch event, so for a moment the cache does not show it; a controller reading the
// cache then would act on the world as it was before its own write (bind a pod it just bound,
// count a node it just tainted as untainted). This keeps, per kind, the resourceVersion the
// kind's watch must reach before its cache holds every write this client made: a watch
// delivers a kind's changes in resourceVersion order, so once it has reached a write's version
// the cache shows that write and every earlier one. Writes answered without the object
// (evictions, bindings, deletes of objects gone at once) are given the server's current
// version, read right after them, which is at least theirs; when that read fails, the kind's
// informer relists and the kind waits for that list. A kind whose versions are not integers
// (not etcd) can never be compared, so it is always read from the server.
import type { Kind } from '../../core/cluster/client.js';

/** etcd revisions are integers, comparable across objects; other servers' versions are opaque. */
export const revision = (rv: string | undefined): bigint | undefined =>
  rv && /^\d{1,30}$/.test(rv) ? BigInt(rv) : undefined;

export class UnseenWrites {
  private readonly reach = new Map<Kind, bigint>();
  private readonly opaque = new Set<Kind>();
  /** Kinds with a write of unknown version: shown once their informer has listed more often than this. */
  private readonly relistAfter = new Map<Kind, number>();

  /** A write of `kind` is at `resourceVersion` (or earlier). */
  written(kind: Kind, resourceVersion: string | undefined): void {
    const rv = revision(resourceVersion);
    if (rv === undefined) this.opaque.add(kind);
    else if (!((this.reach.get(kind) ?? -1n) >= rv)) this.reach.set(kind, rv);
  }

  /** A write of `kind` whose version could not be learnt, made after the kind's informer had listed `lists` times. */
  unknown(kind: Kind, lists: number): void {
    this.relistAfter.set(kind, Math.max(lists, this.relistAfter.get(kind) ?? 0));
  }

  /** Whether a cache whose watch has reached `version`, after `lists` lists, shows every write of `kind`. */
  shown(kind: Kind, version: string, lists: number): boolean {
    if (this.opaque.has(kind)) return false;
    const after = this.relistAfter.get(kind);
    if (after !== undefined) {
      if (lists <= after) return false;
      this.relistAfter.delete(kind);
    }
    const reach = this.reach.get(kind);
    if (reach === undefined) return true;
    const seen = revision(version);
    if (seen === undefined || seen < reach) return false;
    this.reach.delete(kind);
    return true;
  }
}
