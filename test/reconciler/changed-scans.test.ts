// SPDX-License-Identifier: Apache-2.0
// The clean-up's taint scan (taint-scan.ts) and expiration's due instants (expiration.ts
// DueInstants), kept across the indexes of a live index (src/core/cluster/live-index.ts), answer
// what a scan of the whole index answers, after every batch of generated watch events: machines
// coming (a NodeClaim launching, its Node registering) and going, NodeClaims joining other Nodes,
// disrupted taints put on and taken off by someone else, deletions starting, expireAfter changing
// so that an expiry instant arrives, pods moving (new StateNodes for unchanged machines). The view's
// watch events between two indexes are known or, now and then, not (a list in between).
import { describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../src/core/cluster/client.js';
import { LiveIndex } from '../../src/core/cluster/live-index.js';
import { emptySnapshot, type Snapshot } from '../../src/core/cluster/snapshot.js';
import { byNamespaceAndName } from '../../src/core/cluster/sorted-objects.js';
import type { ClusterIndex } from '../../src/core/cluster/state.js';
import type { KubeObject, Node, NodeClaim } from '../../src/core/cluster/types.js';
import { DueInstants, dueForExpiration } from '../../src/control/reconciler/expiration.js';
import { TaintScan } from '../../src/control/reconciler/taint-scan.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { makeNodeClaimAndNode, makeNodePool, makePod } from '../support/cluster-builder.js';
import { seededRandom } from '../support/seeded-random.js';

const T0 = Date.parse('2026-08-02T00:00:00Z'); // a day after the builder's machines were created
const keyOf = (o: KubeObject): string => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const BUCKETS: Record<string, 'nodePools' | 'nodeClaims' | 'nodes' | 'pods'> = {
  NodePool: 'nodePools',
  NodeClaim: 'nodeClaims',
  Node: 'nodes',
  Pod: 'pods',
};

function snapshotOf(objects: Iterable<KubeObject>): Snapshot {
  const s = emptySnapshot();
  for (const o of [...objects].sort(byNamespaceAndName)) (s[BUCKETS[o.kind]] as KubeObject[]).push(o);
  return s;
}

/** A world of machines changed by generated watch events, with the view's log of them per index. */
class World {
  readonly objects = new Map<string, KubeObject>();
  private next = 0;
  private version = 0;
  readonly live: LiveIndex;
  private readonly serials = new Map<ClusterIndex, number>();
  private readonly log: (readonly WatchEvent[] | undefined)[] = [];

  constructor(
    private readonly r: () => number,
    machines: number,
  ) {
    for (const pool of ['default', 'spot']) this.put(makeNodePool(pool));
    for (let i = 0; i < machines; i++) this.machine(true);
    this.live = new LiveIndex(snapshotOf(this.objects.values()));
    this.serials.set(this.live.current(), 0);
  }

  /** The watch events applied between two indexes; undefined now and then, as after a list. */
  readonly changes = (from: ClusterIndex, to: ClusterIndex): readonly WatchEvent[] | undefined => {
    const a = this.serials.get(from);
    const b = this.serials.get(to);
    if (a === undefined || b === undefined || a > b) return undefined;
    const batches = this.log.slice(a, b);
    return batches.some((x) => x === undefined) ? undefined : batches.flatMap((x) => x!);
  };

  /** Applies one batch of random events; returns the new index. */
  step(): ClusterIndex {
    const batch: WatchEvent[] = [];
    for (let k = this.r() < 0.7 ? 1 : 2 + Math.floor(this.r() * 4); k > 0; k--) batch.push(...this.change());
    const before = this.live.current();
    const index = this.live.apply(batch);
    if (index !== before) {
      this.log.push(this.r() < 0.05 ? undefined : batch);
      this.serials.set(index, this.log.length);
    }
    return index;
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)]!;
  }

  private of<T extends KubeObject>(kind: string): T[] {
    return [...this.objects.values()].filter((o) => o.kind === kind) as T[];
  }

  private put(o: KubeObject): WatchEvent {
    const object = { ...o, metadata: { ...o.metadata, resourceVersion: String(++this.version) } };
    const type = this.objects.has(keyOf(object)) ? 'MODIFIED' : 'ADDED';
    this.objects.set(keyOf(object), object);
    return { type, object };
  }

  private remove(o: KubeObject): WatchEvent {
    this.objects.delete(keyOf(o));
    return { type: 'DELETED', object: o };
  }

  /** A new machine: its NodeClaim, and mostly its Node (else it has not registered yet). */
  private machine(young = false): WatchEvent[] {
    const i = Math.floor(this.r() * 5000) * 100 + this.next++;
    const { nodeClaim, node } = makeNodeClaimAndNode(this.pick(['default', 'spot']), i, {
      expireAfter: this.pick(['24h', '25h', '30h', 'Never']),
      // The first machines are young; one that comes later may be due before every other.
      createdAt: young ? '2026-08-01T03:00:00Z' : this.pick(['2026-07-31T16:00:00Z', '2026-08-01T00:00:00Z']),
    });
    const out = [this.put(nodeClaim)];
    if (this.r() < 0.8) out.push(this.put(node));
    return out;
  }

  private change(): WatchEvent[] {
    const x = this.r();
    const nodes = this.of<Node>('Node');
    const claims = this.of<NodeClaim>('NodeClaim');
    if (x < 0.12 || claims.length < 3) return this.machine();
    if (x < 0.2) return [this.remove(this.pick<KubeObject>(nodes.length ? nodes : claims))];
    if (x < 0.27) return [this.remove(this.pick(claims))];
    if (x < 0.45 && nodes.length) {
      // Someone else taints or untaints a Node.
      const n = this.pick(nodes);
      const others = (n.spec.taints ?? []).filter((t) => t.key !== 'karpenter.sh/disrupted');
      const taints =
        this.r() < 0.5 ? [...others, { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' as const }] : others;
      return [this.put({ ...n, spec: { ...n.spec, taints } } as Node)];
    }
    if (x < 0.52) {
      const o = this.pick([...nodes, ...claims]);
      return [this.put({ ...o, metadata: { ...o.metadata, deletionTimestamp: '2026-08-01T12:00:00Z' } })];
    }
    if (x < 0.62) {
      const c = this.pick(claims);
      return [this.put({ ...c, spec: { ...c.spec, expireAfter: this.pick(['23h', '24h30m', '26h', 'Never']) } })];
    }
    if (x < 0.68 && nodes.length) {
      // A NodeClaim takes another Node's providerID (the join moves), or loses its own.
      const c = this.pick(claims);
      const providerID = this.r() < 0.7 ? this.pick(nodes).spec.providerID : undefined;
      return [this.put({ ...c, status: { ...c.status, providerID } } as NodeClaim)];
    }
    if (x < 0.74 && nodes.length) {
      const n = this.pick(nodes);
      return [this.put({ ...n, metadata: { ...n.metadata, labels: { ...n.metadata.labels, step: String(x) } } })];
    }
    // A pod lands on a Node: a new StateNode for an unchanged machine.
    const on = nodes.length ? this.pick(nodes).metadata.name : undefined;
    return [this.put(makePod(`p${Math.floor(this.r() * 30)}`, on))];
  }
}

describe('the taint scan kept across indexes', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])(
    'answers what a scan of the whole index answers after every batch of events (seed %i)',
    (seed) => {
      const r = seededRandom(seed);
      const world = new World(r, 12);
      const kept = new TaintScan(world.changes);
      let tainted = 0;
      for (let step = 0; step < 150; step++) {
        const index = world.step();
        const got = kept.scan(index);
        const want = new TaintScan().scan(index);
        expect([...got.existing].sort(), `seed ${seed} step ${step}`).toEqual([...want.existing].sort());
        expect(got.tainted.length, `seed ${seed} step ${step}`).toBe(want.tainted.length);
        // The index's own StateNodes, in its order.
        got.tainted.forEach((sn, i) => expect(sn, `seed ${seed} step ${step}`).toBe(want.tainted[i]));
        tainted += got.tainted.length;
      }
      // Most scans followed the changes (machines came and went among them), and taints were found.
      expect(kept.passes.kept).toBeGreaterThan(120);
      expect(tainted).toBeGreaterThan(50);
    },
  );
});

describe('expiration due instants kept across indexes', () => {
  const loaded = loadPolicies([
    { fileName: 'p.kpol', text: 'policy aging for nodepool spot {\n  expire after 25h\n}\n' },
  ]);
  if (!loaded.ok) throw new Error('test policy does not load');
  const NONE: never[] = [];

  it.each([1, 2, 3, 4, 5, 6, 7, 8])(
    'gives the claims a scan of the whole index gives, after every batch of events (seed %i)',
    (seed) => {
      const r = seededRandom(seed);
      const world = new World(r, 12);
      const kept = new DueInstants(world.changes);
      let now = T0 - 10 * 3_600_000;
      let due = 0;
      for (let step = 0; step < 150; step++) {
        const index = world.step();
        // Time moves so that expiry instants (24 h, 24 h 30 m, 25 h, 26 h after creation) arrive.
        now += Math.floor(r() * 4) * 10 * 60_000;
        // Policies switch now and then: every claim's instant is read again then.
        const policies = step % 50 < 25 ? loaded.policies : NONE;
        const names = (xs: readonly { nc: NodeClaim; pool: string }[]) =>
          xs.map((d) => `${d.pool}/${d.nc.metadata.name}`);
        const got = kept.dueAt(index, policies, now);
        const want = dueForExpiration(index, policies, now);
        expect(names(got), `seed ${seed} step ${step}`).toEqual(names(want));
        got.forEach((d, i) => expect(d.nc, `seed ${seed} step ${step}`).toBe(want[i]!.nc));
        due += got.length;
      }
      expect(kept.passes.kept).toBeGreaterThan(120);
      expect(due).toBeGreaterThan(20);
    },
  );
});
