// SPDX-License-Identifier: Apache-2.0
// The cluster index kept from watch events equals indexCluster over the same objects, after every
// event of generated sequences: pods binding, moving and going, Nodes and NodeClaims joining and
// parting by providerID (several sharing one among them), PDBs, NodePools and ConfigMaps. Then the
// same through the ClusterView on the in-memory server, where events arrive asynchronously and the
// view must know when it holds them all.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { WatchEvent } from '../../src/core/cluster/client.js';
import { INDEX_BUCKETS, LiveIndex, stateNodeChanges } from '../../src/core/cluster/live-index.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import { emptySnapshot, type Snapshot } from '../../src/core/cluster/snapshot.js';
import { byNamespaceAndName } from '../../src/core/cluster/sorted-objects.js';
import { indexCluster, matchingPdbs, type ClusterIndex, type StateNode } from '../../src/core/cluster/state.js';
import type { KubeObject, Pod } from '../../src/core/cluster/types.js';
import { ClusterView, VIEW_KINDS } from '../../src/control/reconciler/cluster-view.js';
import { OwnedNodeClaims } from '../../src/control/runtime/owned-cluster.js';
import { makeNodeClaimAndNode, makeNodePool, makePdb, makePod } from '../support/cluster-builder.js';
import { seededRandom } from '../support/seeded-random.js';

const BUCKET: Record<string, keyof Omit<Snapshot, 'ignored'>> = INDEX_BUCKETS;
const keyOf = (o: KubeObject): string => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

function snapshotOf(objects: Iterable<KubeObject>): Snapshot {
  const s = emptySnapshot();
  for (const o of [...objects].sort(byNamespaceAndName)) (s[BUCKET[o.kind]] as KubeObject[]).push(o);
  return s;
}

const sn = (s: StateNode | undefined) => s && { ...s, pods: [...s.pods] };
const entries = <V>(m: Map<string, V>, f: (v: V) => unknown) =>
  [...m].map(([k, v]) => [k, f(v)]).sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1));

/** Everything an index answers, in a form toEqual compares (maps as sorted entries). */
function shape(ix: ClusterIndex) {
  const { nodePools, nodeClaims, nodes, pods, pdbs, configMaps } = ix.snapshot;
  return {
    snapshot: { nodePools, nodeClaims, nodes, pods, pdbs, configMaps },
    stateNodes: ix.stateNodes.map(sn),
    nodePoolsByName: entries(ix.nodePoolsByName, (v) => v),
    nodesByName: entries(ix.nodesByName, sn),
    nodeClaimsByName: entries(ix.nodeClaimsByName, sn),
    podsByNodeName: entries(ix.podsByNodeName, (v) => v),
    unboundPods: ix.unboundPods,
    pdbsByNamespace: entries(ix.pdbsByNamespace, (v) => v),
    pdbsOfPods: ix.snapshot.pods.map((p) => matchingPdbs(ix, p).map((x) => x.metadata.name)),
  };
}

/**
 * The parts of an index that a later event must not change in place (the name-keyed maps are
 * the view's current ones, live-index.ts): copied down to the objects, which are compared by identity.
 */
function handedOut(ix: ClusterIndex) {
  const { nodePools, nodeClaims, nodes, pods, pdbs, configMaps } = ix.snapshot;
  return {
    lists: [nodePools, nodeClaims, nodes, pods, pdbs, configMaps].map((l) => [...l]),
    stateNodes: ix.stateNodes.map((s) => [s, s.name, s.providerID, s.node, s.nodeClaim, [...s.pods]]),
    unboundPods: [...ix.unboundPods],
    pdbsByNamespace: [...ix.pdbsByNamespace].map(([k, v]) => [k, [...v]]),
    nodePoolsByName: [...ix.nodePoolsByName],
  };
}

/** One random change to `objects` (a map by kind/namespace/name), as the watch event it causes. */
function randomEvent(r: () => number, objects: Map<string, KubeObject>, version: number): WatchEvent {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const provider = () => pick([undefined, 'aws:///p0', 'aws:///p1', 'aws:///p2', 'aws:///p3']);
  const x = r();
  let o: KubeObject;
  if (x < 0.45) {
    const nodeName = pick([
      undefined,
      ...[0, 1, 2, 3, 4].map((i) => makeNodeClaimAndNode('default', i).node.metadata.name),
    ]);
    const pod = makePod(pick(['a', 'b', 'c', 'd', 'e', 'f']), nodeName, {
      namespace: pick(['default', 'web']),
      labels: { app: pick(['x', 'y']) },
    });
    o = pod;
  } else if (x < 0.65) {
    const { node } = makeNodeClaimAndNode('default', Math.floor(r() * 5));
    o = { ...node, spec: { ...node.spec, providerID: provider() } };
  } else if (x < 0.85) {
    const { nodeClaim } = makeNodeClaimAndNode('default', Math.floor(r() * 5));
    o = { ...nodeClaim, status: { ...nodeClaim.status, providerID: provider() } };
  } else if (x < 0.93) {
    o = makePdb(pick(['p', 'q']), { matchLabels: { app: pick(['x', 'y']) } }, { namespace: pick(['default', 'web']) });
  } else if (x < 0.97) {
    o = makeNodePool(pick(['default', 'spot']));
  } else {
    o = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm', namespace: 'kpol' }, data: {} } as KubeObject;
  }
  o = { ...o, metadata: { ...o.metadata, resourceVersion: String(version) } };
  const key = keyOf(o);
  const had = objects.get(key);
  if (had && r() < 0.3) {
    objects.delete(key);
    return { type: 'DELETED', object: had };
  }
  objects.set(key, o);
  return { type: had ? 'MODIFIED' : 'ADDED', object: o };
}

/** Each pod's node name, by pod, as an index's pod list has them. */
const podsByNode = (ix: ClusterIndex): Map<string, string[]> => {
  const out = new Map<string, string[]>();
  for (const p of ix.snapshot.pods)
    if (p.spec.nodeName) out.set(p.spec.nodeName, [...(out.get(p.spec.nodeName) ?? []), keyOf(p)]);
  return out;
};

/**
 * stateNodeChanges from each of the last indexes to `got` is the difference of their machines
 * (known at least from the one before), and names every node whose pods differ.
 */
function followed(history: ClusterIndex[], got: ClusterIndex, at: string): void {
  for (const [k, was] of history.slice(-6).entries()) {
    const change = stateNodeChanges(was, got);
    if (k === Math.min(history.length, 6) - 1) expect(change, at).toBeDefined();
    if (change === undefined) continue;
    expect(new Set(change.gone), at).toEqual(new Set(was.stateNodes.filter((x) => !got.stateNodes.includes(x))));
    expect(new Set(change.came), at).toEqual(new Set(got.stateNodes.filter((x) => !was.stateNodes.includes(x))));
    const [a, b] = [podsByNode(was), podsByNode(got)];
    for (const name of new Set([...a.keys(), ...b.keys()]))
      if (JSON.stringify(a.get(name)) !== JSON.stringify(b.get(name))) expect(change.podNodes, at).toContain(name);
  }
  history.push(got);
}

describe('LiveIndex', () => {
  it('equals indexCluster of the same objects after every event of generated sequences', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const r = seededRandom(seed);
      const objects = new Map<string, KubeObject>();
      for (let i = 0; i < 10; i++) randomEvent(r, objects, i);
      const live = new LiveIndex(snapshotOf(objects.values()));
      expect(shape(live.current())).toEqual(shape(indexCluster(snapshotOf(objects.values()))));
      const history = [live.current()];
      for (let step = 0; step < 80; step++) {
        // Mostly one event at a time, sometimes a batch (the view applies what arrived since its last read).
        const batch = Array.from({ length: r() < 0.8 ? 1 : 1 + Math.floor(r() * 6) }, (_, i) =>
          randomEvent(r, objects, 100 + step * 10 + i),
        );
        const before = live.current();
        const kept = handedOut(before);
        const got = live.apply(batch);
        // What an index handed out holds stays as it was: the evaluator tells change by identity.
        expect(handedOut(before), `seed ${seed}, step ${step}: an earlier index changed`).toEqual(kept);
        const want = indexCluster(snapshotOf(objects.values()));
        expect(shape(got), `seed ${seed}, step ${step}`).toEqual(shape(want));
        if (got !== before) followed(history, got, `seed ${seed}, step ${step}`);
      }
    }
  });

  it('gives a pod event new objects for its node alone: other StateNodes, pod lists and kind lists are kept', () => {
    const objects: KubeObject[] = [makeNodePool('default')];
    for (let i = 0; i < 4; i++) {
      const { nodeClaim, node } = makeNodeClaimAndNode('default', i);
      objects.push(nodeClaim, node, makePod(`p${i}`, node.metadata.name));
    }
    const live = new LiveIndex(snapshotOf(objects));
    const before = live.current();
    const target = before.stateNodes[2];
    const pod = target.pods[0];
    const moved: Pod = { ...pod, metadata: { ...pod.metadata, labels: { changed: 'yes' } } };
    const after = live.apply([{ type: 'MODIFIED', object: moved }]);
    expect(after).not.toBe(before);
    for (let i = 0; i < 4; i++) if (i !== 2) expect(after.stateNodes[i]).toBe(before.stateNodes[i]);
    expect(after.stateNodes[2].pods).toEqual([moved]);
    expect(after.snapshot.nodes).toBe(before.snapshot.nodes);
    expect(after.snapshot.pdbs).toBe(before.snapshot.pdbs);
    expect(after.nodePoolsByName).toBe(before.nodePoolsByName);
    expect(after.snapshot.pods).toContain(moved);
  });
});

describe('ClusterView on the in-memory server', () => {
  it('follows writes event by event and equals a fresh list-and-index after each', async () => {
    const clock = new FakeClock(Date.parse('2026-11-26T00:00:00Z'));
    const seed: KubeObject[] = [makeNodePool('default')];
    for (let i = 0; i < 4; i++) {
      const { nodeClaim, node } = makeNodeClaimAndNode('default', i);
      seed.push(nodeClaim, node, makePod(`p${i}`, node.metadata.name, { labels: { app: 'x' } }));
    }
    const server = new MemoryCluster(clock, seed);
    // NodeClaim 3 belongs to another cloud provider: lists leave it out, so the view must too.
    const client = new OwnedNodeClaims(server, (nc) => !nc.metadata.name.endsWith('-3'));
    const view = new ClusterView(client, {
      kindVersion: (k) => server.kindVersion(k),
      keeps: (o) => client.keeps(o),
    });
    const fresh = async () => {
      const [nodePools, nodeClaims, nodes, pods, pdbs, configMaps] = await Promise.all(
        VIEW_KINDS.map((k) => client.list(k)),
      );
      return indexCluster({ ...emptySnapshot(), nodePools, nodeClaims, nodes, pods, pdbs, configMaps } as Snapshot);
    };
    await view.current();
    const r = seededRandom(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
    for (let step = 0; step < 60; step++) {
      const x = r();
      const name = pick(['a', 'b', 'c']);
      const live = await server.get({ kind: 'Pod', namespace: 'default', name });
      if (x < 0.3 && !live) {
        const nodeName = pick([undefined, ...seed.filter((o) => o.kind === 'Node').map((o) => o.metadata.name)]);
        await client.create(makePod(name, nodeName, { labels: { app: pick(['x', 'y']) } }));
      } else if (x < 0.55 && live) {
        await client.patch(
          { kind: 'Pod', namespace: 'default', name },
          { metadata: { labels: { app: pick(['x', 'y']) } } },
        );
      } else if (x < 0.7 && live) {
        await client.delete({ kind: 'Pod', namespace: 'default', name }, { gracePeriodSeconds: 0 });
      } else if (x < 0.8) {
        const pdb = await server.get({ kind: 'PodDisruptionBudget', namespace: 'default', name: 'pdb' });
        if (pdb) await client.delete({ kind: 'PodDisruptionBudget', namespace: 'default', name: 'pdb' });
        else await client.create(makePdb('pdb', { matchLabels: { app: pick(['x', 'y']) } }));
      } else {
        // A NodeClaim changes (ours or the foreign one): the join and the ownership filter must follow.
        const nc = pick((await server.list('NodeClaim')).map((o) => o.metadata.name));
        await client.patch({ kind: 'NodeClaim', name: nc }, { metadata: { labels: { step: String(step) } } });
      }
      expect(shape(await view.current()), `step ${step}`).toEqual(shape(await fresh()));
    }
    // All of it followed from events: the one list was the first read.
    expect(view.builds.full).toBe(1);
    expect(view.builds.incremental).toBeGreaterThan(40);
  });

  it('lists again rather than answer without an event still in flight', async () => {
    const clock = new FakeClock(Date.parse('2026-11-26T00:00:00Z'));
    const server = new MemoryCluster(clock, [makePod('a', undefined)]);
    const view = new ClusterView(server, { kindVersion: (k) => server.kindVersion(k) });
    await view.current();
    // Not awaited: the write is stored at once, its watch event is delivered in a later microtask.
    const write = server.patch({ kind: 'Pod', namespace: 'default', name: 'a' }, { metadata: { labels: { x: 'y' } } });
    const ix = await view.current();
    await write;
    expect(ix.snapshot.pods[0].metadata.labels).toEqual({ x: 'y' });
    expect(view.builds.full).toBe(2);
  });

  it('keeps the events between its last builds, without the objects before each change', async () => {
    const clock = new FakeClock(Date.parse('2026-11-26T00:00:00Z'));
    const { nodeClaim, node } = makeNodeClaimAndNode('default', 0);
    const server = new MemoryCluster(clock, [makeNodePool('default'), nodeClaim, node]);
    const view = new ClusterView(server, { kindVersion: (k) => server.kindVersion(k) });
    const key = { kind: 'Pod' as const, namespace: 'default', name: 'p' };
    await server.create(makePod('p', node.metadata.name));
    const first = await view.current();
    const delivered: WatchEvent[] = [];
    const w = server.watch('Pod', (e) => delivered.push(e));
    for (let i = 0; i < 3; i++) {
      await server.patch(key, { metadata: { labels: { v: String(i) } } });
      await view.current();
    }
    w.stop();
    const events = view.changesBetween(first, await view.current())!;
    expect(events.map((e) => `${e.type} ${e.object.metadata.labels?.v}`)).toEqual([
      'MODIFIED 0',
      'MODIFIED 1',
      'MODIFIED 2',
    ]);
    expect(events.map((e) => e.object)).toEqual(delivered.map((e) => e.object));
    // The server's events say what each pod was before; the view's log, kept for 32 builds, does
    // not keep those versions alive.
    expect(delivered.every((e) => e.old !== undefined)).toBe(true);
    expect(events.some((e) => 'old' in e)).toBe(false);
  });
});
