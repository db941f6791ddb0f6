// SPDX-License-Identifier: Apache-2.0
// Read-your-writes for reads served from an informer's cache. A write's answer comes back
// before its watch event, so for a moment the cache does not show it; a controller reading the
// cache then would act on the world as it was before its own write (bind a pod it just bound,
// count a node it just tainted as untainted). This keeps, per kind, the resourceVersion the
// kind's watch must reach before its cache holds every write this client made: a watch
// delivers a kind's changes in resourceVersion order, so once it has reached a write's version
// the cache shows that write and every earlier one. Writes answered without the object
// (evictions, bindings, deletes of objects gone at once) are given the server's current
// version, read right after them, which is at least theirs. A kind whose versions are not
// integers (not etcd) can never be compared, so it is always read from the server.
import type { Kind } from '../cluster/client.js';

/** etcd revisions are integers, comparable across objects; other servers' versions are opaque. */
export const revision = (rv: string | undefined): bigint | undefined => (rv && /^\d{1,30}$/.test(rv) ? BigInt(rv) : undefined);

export class UnseenWrites {
  private readonly reach = new Map<Kind, bigint>();
  private readonly opaque = new Set<Kind>();

  /** A write of `kind` is at `resourceVersion` (or earlier). */
  written(kind: Kind, resourceVersion: string | undefined): void {
    const rv = revision(resourceVersion);
    if (rv === undefined) this.opaque.add(kind);
    else if (!((this.reach.get(kind) ?? -1n) >= rv)) this.reach.set(kind, rv);
  }

  /** Whether a cache whose watch has reached `version` shows every write of `kind`. */
  shown(kind: Kind, version: string): boolean {
    if (this.opaque.has(kind)) return false;
    const reach = this.reach.get(kind);
    if (reach === undefined) return true;
    const seen = revision(version);
    if (seen === undefined || seen < reach) return false;
    this.reach.delete(kind);
    return true;
  }
}
