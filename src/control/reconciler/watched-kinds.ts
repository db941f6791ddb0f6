// SPDX-License-Identifier: Apache-2.0
// Watch events of a few kinds, applied by a controller to what it keeps between passes (which
// NodeClaims carry a providerID, which objects are finalizing), with the proof that it holds all
// of them: on the in-memory server every write's event carries the kind's resourceVersion
// (`kindVersion`), so state built from a list and then from every later event is current once the
// newest event seen is the kind's latest write. Until then — the first pass, an event still in
// flight, a version it cannot read, a client without kindVersion (the Kubernetes adapter) — the
// controller must read everything again: complete() says which.
import type { ClusterClient, Kind, WatchEvent } from '../../core/cluster/client.js';

export class WatchedKinds {
  /** Per kind, the version the last list showed, and the newest one an event has shown since. */
  private readonly listed = new Map<Kind, number>();
  private readonly seen = new Map<Kind, number>();
  private readonly stops: { stop(): void }[];

  constructor(
    client: ClusterClient,
    private readonly kinds: readonly Kind[],
    private readonly kindVersion: ((kind: Kind) => number) | undefined,
    /** Applies an event newer than the last list to the kept state. */
    private readonly apply: (e: WatchEvent) => void,
  ) {
    this.stops = kinds.map((kind) => client.watch(kind, (e) => this.received(kind, e)));
  }

  private received(kind: Kind, e: WatchEvent): void {
    if (!this.listed.has(kind)) return; // nothing kept yet for it to apply to
    const rv = Number(e.object.metadata.resourceVersion);
    if (!Number.isSafeInteger(rv) || (e.type !== 'ADDED' && e.type !== 'MODIFIED' && e.type !== 'DELETED')) {
      this.distrust();
      return;
    }
    if (rv > (this.seen.get(kind) ?? 0)) this.seen.set(kind, rv);
    if (rv <= (this.listed.get(kind) ?? 0)) return; // the list already showed it
    this.apply(e);
  }

  /**
   * The kept state of `kind` is being rebuilt from a list: call it right before the list call, in
   * the same synchronous step; later events are applied on top. Returns false without
   * kindVersion (nothing is ever complete then).
   */
  listing(kind: Kind): boolean {
    if (this.kindVersion === undefined) return false;
    const v = this.kindVersion(kind);
    this.listed.set(kind, v);
    this.seen.set(kind, v);
    return true;
  }

  /** Forget the kept state: the next pass lists again. */
  distrust(): void {
    this.listed.clear();
    this.seen.clear();
  }

  /** The kept state reflects every write to the kinds so far. */
  complete(): boolean {
    const kv = this.kindVersion;
    return kv !== undefined && this.kinds.every((k) => this.listed.has(k) && (this.seen.get(k) ?? 0) >= kv(k));
  }

  stop(): void {
    for (const s of this.stops) s.stop();
  }
}
