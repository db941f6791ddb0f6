// SPDX-License-Identifier: Apache-2.0
// The controller's view of the cluster: every kind it reads, listed through the ClusterClient
// and joined into a ClusterIndex. Watches mark the view stale; an unchanged cluster is not
// listed again (a tick over a quiet 5,000-node cluster must not copy 150,000 pods). With a
// change stamp (the in-memory server's per-kind resourceVersions) staleness is exact and
// synchronous: the view is rebuilt when, and only when, an object of a kind it reads changed.
//
// With per-kind resourceVersions that watch events carry (`kindVersion`, the in-memory server),
// a change is not listed at all: the view applies the watch events it received to a LiveIndex
// (src/core/cluster/live-index.ts), so one pod event costs that pod's node, not the cluster. It
// does so only when it holds every event up to each kind's latest write; otherwise (an event
// still in flight, a resourceVersion it cannot read, the first read) it lists every kind and
// builds the index again, which is also the only path for a client without `kindVersion`
// (the Kubernetes adapter, whose stamp mixes informer versions with its own write counts).
import type { ClusterClient, Kind, WatchEvent } from '../../core/cluster/client.js';
import { LiveIndex } from '../../core/cluster/live-index.js';
import { emptySnapshot, type Snapshot } from '../../core/cluster/snapshot.js';
import { indexCluster, type ClusterIndex } from '../../core/cluster/state.js';
import type {
  ConfigMap,
  KubeObject,
  Node,
  NodeClaim,
  NodePool,
  Pod,
  PodDisruptionBudget,
} from '../../core/cluster/types.js';

/** How many incremental builds' events a view keeps for changesBetween. */
const BUILD_LOG = 32;

export const VIEW_KINDS: readonly Kind[] = ['NodePool', 'NodeClaim', 'Node', 'Pod', 'PodDisruptionBudget', 'ConfigMap'];

export interface ClusterViewOptions {
  /**
   * A value that differs whenever an object of one of VIEW_KINDS has changed since it was last
   * read. When given, current() reuses the index until the stamp moves, whatever invalidate() said.
   */
  changeStamp?: () => string;
  /**
   * The resourceVersion (a number increasing across the cluster) of the latest write to an
   * object of `kind`, which the write's watch event carries. Turns on the incremental path, and
   * gives the change stamp when `changeStamp` is not given.
   */
  kindVersion?: (kind: Kind) => number;
  /** The objects the client's list() returns (a filtering client's watch may show more); default all. */
  keeps?: (o: KubeObject) => boolean;
}

export class ClusterView {
  private index: ClusterIndex | undefined;
  private stale = true;
  /** Bumped on every observed change: the consolidation state timestamp of KARPENTER.md#consolidated-cache. */
  generation = 0;
  private readonly stops: Array<{ stop(): void }> = [];
  private builtAt: string | undefined;
  private live: LiveIndex | undefined;
  /** Watch events newer than the last list, in arrival order, not yet applied. */
  private pending: WatchEvent[] = [];
  /** Per kind, the resourceVersion the last list showed, and the newest one an event has shown since. */
  private readonly listed = new Map<Kind, number>();
  private readonly seen = new Map<Kind, number>();
  /** Index builds by path (tests, benchmarks). */
  readonly builds = { full: 0, incremental: 0 };
  /** Answers the bench's baseline and the equality test: every change lists and indexes everything. */
  incremental = true;
  /**
   * Each index handed out gets the next serial; each incremental build keeps the events it
   * applied (the last BUILD_LOG of them), so a reader holding an older index can learn what
   * changed since (changesBetween) instead of comparing everything.
   */
  private serial = 0;
  private readonly serials = new WeakMap<ClusterIndex, number>();
  private log: { serial: number; events: readonly WatchEvent[] }[] = [];

  constructor(
    private readonly client: ClusterClient,
    private readonly options: ClusterViewOptions = {},
  ) {
    for (const kind of VIEW_KINDS) {
      this.stops.push(
        client.watch(kind, (e) => {
          this.stale = true;
          this.generation++;
          if (this.live) this.received(kind, e);
        }),
      );
    }
  }

  private received(kind: Kind, e: WatchEvent): void {
    const rv = Number(e.object.metadata.resourceVersion);
    if (!Number.isSafeInteger(rv) || (e.type !== 'ADDED' && e.type !== 'MODIFIED' && e.type !== 'DELETED')) {
      this.live = undefined; // cannot place the event: the next read lists everything
      return;
    }
    if (rv > (this.seen.get(kind) ?? 0)) this.seen.set(kind, rv);
    if (rv <= (this.listed.get(kind) ?? 0)) return; // the list already held it
    const keeps = this.options.keeps;
    // Kept for the last BUILD_LOG builds (changesBetween): without the object before the change,
    // which nobody here reads and which would keep each changed object's last version alive.
    const type = e.type !== 'DELETED' && keeps && !keeps(e.object) ? 'DELETED' : e.type;
    this.pending.push(type === e.type && e.old === undefined ? e : { type, object: e.object });
  }

  /** Marks the view stale after the controller's own writes (watch delivery is asynchronous). */
  invalidate(): void {
    this.stale = true;
    this.generation++;
  }

  private stamp(): string | undefined {
    const { changeStamp, kindVersion } = this.options;
    if (changeStamp) return changeStamp();
    return kindVersion && VIEW_KINDS.map((k) => kindVersion(k)).join('/');
  }

  async current(): Promise<ClusterIndex> {
    const stamp = this.stamp();
    const fresh = stamp === undefined ? !this.stale : stamp === this.builtAt;
    if (this.index && fresh) return this.index;
    const kindVersion = this.options.kindVersion;
    if (
      this.incremental &&
      this.live &&
      kindVersion &&
      VIEW_KINDS.every((k) => (this.seen.get(k) ?? 0) >= kindVersion(k))
    ) {
      this.stale = false;
      this.builtAt = stamp;
      const events = this.pending;
      this.pending = [];
      this.builds.incremental++;
      const before = this.index;
      this.index = this.live.apply(events);
      if (this.index !== before) {
        this.serials.set(this.index, ++this.serial);
        this.log.push({ serial: this.serial, events });
        if (this.log.length > BUILD_LOG) this.log.shift();
      }
      return this.index;
    }
    this.stale = false;
    this.builtAt = stamp;
    if (kindVersion)
      for (const k of VIEW_KINDS) {
        this.listed.set(k, kindVersion(k));
        this.seen.set(k, kindVersion(k));
      }
    this.pending = [];
    const [nodePools, nodeClaims, nodes, pods, pdbs, configMaps] = await Promise.all(
      VIEW_KINDS.map((k) => this.client.list(k)),
    );
    const snapshot: Snapshot = {
      ...emptySnapshot(),
      nodePools: nodePools as NodePool[],
      nodeClaims: nodeClaims as NodeClaim[],
      nodes: nodes as Node[],
      pods: pods as Pod[],
      pdbs: pdbs as PodDisruptionBudget[],
      configMaps: configMaps as ConfigMap[],
    };
    this.builds.full++;
    // Without kindVersion there is no telling whether the events received are all there are.
    this.live = kindVersion && this.incremental ? new LiveIndex(snapshot) : undefined;
    this.index = this.live?.current() ?? indexCluster(snapshot);
    this.serials.set(this.index, ++this.serial);
    this.log = []; // what changed before a list is not known
    return this.index;
  }

  /**
   * The watch events applied between two indexes this view handed out, oldest first; undefined
   * when that is not known (an index built from a list in between, one of them not from this
   * view, `to` older than `from`, or more builds in between than the view keeps). Every object
   * that differs between the two indexes is one of these events' objects.
   */
  changesBetween(from: ClusterIndex, to: ClusterIndex): readonly WatchEvent[] | undefined {
    const a = this.serials.get(from);
    const b = this.serials.get(to);
    if (a === undefined || b === undefined || a > b) return undefined;
    if (a === b) return [];
    const first = this.log.findIndex((e) => e.serial === a + 1);
    if (first < 0) return undefined;
    const out: WatchEvent[] = [];
    for (const entry of this.log.slice(first)) {
      if (entry.serial > b) break;
      out.push(...entry.events);
    }
    return out;
  }

  close(): void {
    for (const s of this.stops) s.stop();
  }
}
