// SPDX-License-Identifier: Apache-2.0
// The client kpol's runtime reads through in a scenario on the real server, with the server's
// timestamps moved onto the scenario's fake clock. kube-apiserver stamps creationTimestamp and
// deletionTimestamp with its wall clock, while a scenario steps a FakeClock hours ahead in
// seconds of wall time: expireAfter, terminationGracePeriod, drift order and the kubelet's
// grace period would all be computed from a different time axis than everything kpol writes
// itself. Only the axis is translated; what the server does (who sets a timestamp, when, to
// what grace period) stays the server's.
//
// Translation by observation, not by wall time: a timestamp maps to the fake time at which this
// client first saw it (in a write's answer, a read, or a watch event). The alternative — record
// wall↔fake at every tick and map the server's wall time — fails because the server writes whole
// seconds while most ticks take a few milliseconds of wall time, so a second spans many ticks.
// Observation is exact because the harness waits after every tick until kube-controller-manager
// has caught up and the informers have delivered everything, before the clock moves: whatever
// the server stamped during a tick is seen during that tick.
import type {
  ClusterClient,
  DeleteOptions,
  Kind,
  MergePatch,
  ObjectKey,
  Preconditions,
  WatchEvent,
} from '../../../src/core/cluster/client.js';
import type { KubeObject } from '../../../src/core/cluster/types.js';
import type { Clock } from '../../../src/core/clock.js';
import type { KubeClusterClient } from '../../../src/edge/kube/kube-cluster.js';

const rfc3339 = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

interface Deletion {
  /** The server's deletionTimestamp and grace period, as last seen. */
  raw: string;
  fakeMs: number;
}

/** Per object (uid), when on the fake clock it was created and asked to be deleted. */
export class ScenarioTimeline {
  private readonly created = new Map<string, number>();
  private readonly deleted = new Map<string, Deletion>();

  constructor(private readonly clock: Clock) {}

  /** `obj` with its server timestamps on the fake clock; records them if first seen. */
  translate<T extends KubeObject>(obj: T): T {
    const { uid, creationTimestamp, deletionTimestamp } = obj.metadata;
    if (!uid || (!creationTimestamp && !deletionTimestamp)) return obj;
    const metadata = { ...obj.metadata };
    if (creationTimestamp) {
      if (!this.created.has(uid)) this.created.set(uid, this.clock.now());
      metadata.creationTimestamp = rfc3339(this.created.get(uid)!);
    }
    if (deletionTimestamp) {
      // A pod's deletionTimestamp is the request's time plus its grace period; a second delete
      // with a shorter grace moves it (both fields change), which is a new request.
      const grace = (obj.metadata as { deletionGracePeriodSeconds?: number }).deletionGracePeriodSeconds ?? 0;
      const raw = `${deletionTimestamp}/${grace}`;
      let d = this.deleted.get(uid);
      if (d?.raw !== raw) this.deleted.set(uid, (d = { raw, fakeMs: this.clock.now() + grace * 1000 }));
      metadata.deletionTimestamp = rfc3339(d.fakeMs);
    }
    return { ...obj, metadata };
  }
}

/**
 * `obj` as the server may take it on create or update: without the timestamps, which it sets
 * itself (create) or keeps from the stored object (update) — so a translated one never goes back.
 */
function untimed<T extends KubeObject>(obj: T): T {
  const { creationTimestamp: _c, deletionTimestamp: _d, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** A KubeClusterClient seen through a ScenarioTimeline; `prepare` adapts what it creates. */
export class TimelineClient implements ClusterClient {
  private readonly subscriptions: { stop(): void }[];

  constructor(
    private readonly inner: KubeClusterClient,
    private readonly timeline: ScenarioTimeline,
    kinds: readonly Kind[],
    private readonly prepare: (obj: KubeObject) => Promise<KubeObject> = async (o) => o,
  ) {
    // Watching every kind makes "first seen" happen when the informer delivers, during the tick
    // that caused the change, rather than whenever kpol next happens to read the object.
    this.subscriptions = kinds.map((k) =>
      inner.watch(k, (e) => {
        this.timeline.translate(e.object);
      }),
    );
  }

  close(): void {
    for (const s of this.subscriptions) s.stop();
  }

  kindVersion(kind: Kind): string {
    return this.inner.kindVersion(kind);
  }

  private readonly seen = <T extends KubeObject>(obj: T): T => this.timeline.translate(obj);

  async list<T extends KubeObject>(kind: Kind, namespace?: string): Promise<T[]> {
    return (await this.inner.list<T>(kind, namespace)).map(this.seen);
  }

  async get<T extends KubeObject>(key: ObjectKey): Promise<T | undefined> {
    const o = await this.inner.get<T>(key);
    return o && this.seen(o);
  }

  async create<T extends KubeObject>(obj: T): Promise<T> {
    return this.seen(await this.inner.create((await this.prepare(untimed(obj))) as T));
  }

  async update<T extends KubeObject>(obj: T): Promise<T> {
    return this.seen(await this.inner.update(untimed(obj)));
  }

  async patch<T extends KubeObject>(key: ObjectKey, patch: MergePatch, preconditions?: Preconditions): Promise<T> {
    return this.seen(await this.inner.patch<T>(key, patch, preconditions));
  }

  delete(key: ObjectKey, options?: DeleteOptions): Promise<void> {
    return this.inner.delete(key, options);
  }

  evict(namespace: string, name: string, preconditions?: Preconditions): Promise<void> {
    return this.inner.evict(namespace, name, preconditions);
  }

  watch(kind: Kind, handler: (e: WatchEvent) => void): { stop(): void } {
    return this.inner.watch(kind, (e) =>
      handler(
        e.old === undefined
          ? { type: e.type, object: this.seen(e.object) }
          : { type: e.type, object: this.seen(e.object), old: this.seen(e.old) },
      ),
    );
  }
}
