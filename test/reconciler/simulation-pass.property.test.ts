// SPDX-License-Identifier: Apache-2.0
// Property: a SimulationPass (the scheduling input prepared once, every move derived from it)
// decides exactly what the straightforward per-move rebuild (runSimulation / simulateMove)
// decides — same placements, errors and planned NodeClaims — on random clusters, whatever
// order the moves are simulated in and however many share the pass.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PolicySpec } from '../../rules/model.js';
import { loadCatalog } from '../../src/world/cloud/catalog.js';
import { emptySnapshot } from '../../src/core/cluster/snapshot.js';
import { indexCluster, isDaemonSetPod, type ClusterIndex, type StateNode } from '../../src/core/cluster/state.js';
import { LiveIndex } from '../../src/core/cluster/live-index.js';
import { byNamespaceAndName } from '../../src/core/cluster/sorted-objects.js';
import type { WatchEvent } from '../../src/core/cluster/client.js';
import type { Snapshot } from '../../src/core/cluster/snapshot.js';
import type { KubeObject, Node, NodeClaim, Pod } from '../../src/core/cluster/types.js';
import { toCandidate } from '../../src/control/reconciler/methods/candidates.js';
import type { Enough, MoveSimulation } from '../../src/control/reconciler/methods/method.js';
import { mergeBySize, SimulationPass } from '../../src/control/reconciler/simulation-pass.js';
import { SchedulingCache } from '../../src/world/scheduling/scheduling-cache.js';
import { simulateMove } from '../../src/control/reconciler/move-simulation.js';
import { deletingOrMarked, runSimulation, type SimulationEnv } from '../../src/world/scheduling/cluster-simulation.js';
import { PassPlaces } from '../../src/world/scheduling/pass-nodes.js';
import { byDescendingSize, type SchedulingResult } from '../../src/world/scheduling/simulate.js';
import { makeNodeClaimAndNode, makeNodePool, makePdb, makePod } from '../support/cluster-builder.js';

const NOW = Date.parse('2026-08-20T12:00:00Z');
const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';
const ZONES = ['us-west-2a', 'us-west-2b', 'us-west-2c'];
const TYPE_NAMES = ['m5.large', 'm5.xlarge', 'm5.2xlarge', 'c5.large', 'c5.xlarge', 'r5.large'];
const CATALOG = loadCatalog().filter((t) => TYPE_NAMES.includes(t.name));
const TYPES = new Map(CATALOG.map((t) => [t.name, t]));
const TAINT = { key: 'dedicated', value: 'x', effect: 'NoSchedule' as const };

const podArb = fc.record({
  node: fc.integer({ min: -1, max: 7 }), // -1: pending
  cpu: fc.constantFrom('100m', '250m', '500m', '1', '1500m'),
  memory: fc.constantFrom('128Mi', '512Mi', '1Gi', '3Gi'),
  kind: fc.constantFrom(
    'plain',
    'plain',
    'plain',
    'hostAnti',
    'zoneAnti',
    'spread',
    'zonePinned',
    'tolerant',
    'dnd',
    'dndTimed',
    'pdb',
    'daemon',
    'statefulTerminating',
  ),
  zone: fc.constantFrom(...ZONES),
});

const nodeArb = fc.record({
  pool: fc.integer({ min: 0, max: 2 }),
  type: fc.constantFrom(...TYPE_NAMES),
  zone: fc.constantFrom(...ZONES),
  spot: fc.boolean(),
  cpu: fc.constantFrom('1930m', '3920m', '950m'),
  initialized: fc.oneof(fc.constant(true), fc.constant(true), fc.constant(false)),
  deleting: fc.oneof(fc.constant(false), fc.constant(false), fc.constant(false), fc.constant(true)),
  marked: fc.oneof(fc.constant(false), fc.constant(false), fc.constant(false), fc.constant(true)),
  tainted: fc.oneof(fc.constant(false), fc.constant(false), fc.constant(true)),
  lastPodEventMinAgo: fc.integer({ min: 0, max: 20 }),
});

const clusterArb = fc.record({
  pools: fc.array(
    fc.record({
      weight: fc.integer({ min: 0, max: 3 }),
      tainted: fc.boolean(),
      consolidateAfterMin: fc.constantFrom(0, 5, 10),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  nodes: fc.array(nodeArb, { minLength: 1, maxLength: 8 }),
  pods: fc.array(podArb, { maxLength: 40 }),
  order: fc.array(fc.nat(), { maxLength: 20 }),
});

type Raw = typeof clusterArb extends fc.Arbitrary<infer T> ? T : never;

const CONSTRAINTS: Record<string, Record<string, unknown>> = {
  hostAnti: {
    affinity: {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { topologyKey: HOST, labelSelector: { matchLabels: { app: 'hostAnti' } } },
        ],
      },
    },
  },
  zoneAnti: {
    affinity: {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { topologyKey: ZONE, labelSelector: { matchLabels: { app: 'zoneAnti' } } },
        ],
      },
    },
  },
  spread: {
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: ZONE,
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { app: 'spread' } },
      },
    ],
  },
};

function build(raw: Raw): { index: ClusterIndex; env: SimulationEnv } {
  const snapshot = emptySnapshot();
  const marked = new Set<string>();
  const pools = raw.pools.map((p, i) => {
    const np = makeNodePool(`pool-${i}`);
    np.spec.weight = p.weight;
    if (p.tainted) np.spec.template!.spec!.taints = [TAINT];
    snapshot.nodePools.push(np);
    return p;
  });
  const nodeNames: string[] = [];
  raw.nodes.forEach((n, i) => {
    const pool = `pool-${n.pool % pools.length}`;
    const { nodeClaim, node } = makeNodeClaimAndNode(pool, i, {
      instanceType: n.type,
      zone: n.zone,
      capacityType: n.spot ? 'spot' : 'on-demand',
      initialized: n.initialized,
      deleting: n.deleting,
    });
    node.status!.allocatable = { ...node.status!.allocatable, cpu: n.cpu };
    if (n.tainted) node.spec.taints = [...(node.spec.taints ?? []), TAINT];
    nodeClaim.status!.lastPodEventTime = new Date(NOW - n.lastPodEventMinAgo * 60_000).toISOString();
    if (n.marked) marked.add(node.spec.providerID!);
    snapshot.nodeClaims.push(nodeClaim);
    snapshot.nodes.push(node);
    nodeNames.push(node.metadata.name);
  });
  raw.pods.forEach((p, i) => {
    const nodeName = p.node < 0 ? undefined : nodeNames[p.node % nodeNames.length];
    const pod: Pod = makePod(`p${i}`, nodeName, {
      labels: { app: p.kind },
      requests: { cpu: p.cpu, memory: p.memory },
      ...(p.kind === 'dnd' && { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
      // Started 2 minutes before NOW: do-not-disrupt ends 4 minutes after it (a later round may pass that).
      ...(p.kind === 'dndTimed' && {
        annotations: { 'karpenter.sh/do-not-disrupt': '6m' },
        startTime: new Date(NOW - 2 * 60_000).toISOString(),
      }),
      ...(p.kind === 'tolerant' && { tolerations: [{ key: 'dedicated', operator: 'Exists' }] }),
      ...(p.kind === 'daemon' && { owner: 'DaemonSet' as const }),
      ...(p.kind === 'statefulTerminating' && {
        owner: 'StatefulSet' as const,
        deletionTimestamp: '2026-08-20T11:59:00Z',
      }),
    });
    Object.assign(pod.spec, CONSTRAINTS[p.kind] ?? {});
    if (p.kind === 'zonePinned') pod.spec.nodeSelector = { [ZONE]: p.zone };
    snapshot.pods.push(pod);
  });
  snapshot.pdbs.push(
    makePdb('blocking', { matchLabels: { app: 'pdb' } }, { maxUnavailable: 0, disruptionsAllowed: 0 }),
  );
  const policy = (pool: string): PolicySpec | undefined => {
    const p = pools[Number(pool.replace('pool-', ''))];
    return p ? ({ consolidateAfterSeconds: p.consolidateAfterMin * 60 } as PolicySpec) : undefined;
  };
  return { index: indexCluster(snapshot), env: { now: NOW, instanceTypes: CATALOG, marked, policyFor: policy } };
}

const podId = (p: Pod) => p.metadata.name;
const pass = (index: ClusterIndex, env: SimulationEnv) => new SimulationPass(index, env);

/** A scheduling result as comparable data (pods by name, instance types by name). */
function plain(r: SchedulingResult): unknown {
  return {
    placements: [...r.placements].map(([p, at]) => [podId(p), at]),
    errors: [...r.errors].map(([p, e]) => [podId(p), e]),
    claims: r.newNodeClaims.map((c) => ({
      pool: c.nodePool,
      requirements: c.requirements,
      types: c.instanceTypes.map((t) => t.name),
      pods: c.pods.map(podId),
    })),
  };
}

/** Moves to try: each node alone, then growing prefixes (multi-node consolidation's batches), in a random order. */
function moves(index: ClusterIndex, order: readonly number[]): StateNode[][] {
  const nodes = index.stateNodes;
  const all: StateNode[][] = [[], ...nodes.map((sn) => [sn]), ...nodes.slice(1).map((_, i) => nodes.slice(0, i + 2))];
  for (const [i, k] of order.entries()) {
    const a = i % all.length;
    const b = k % all.length;
    [all[a], all[b]] = [all[b], all[a]];
  }
  return all;
}

/** The watch events that turn one snapshot's objects into the next's (replaced objects, removed ones). */
function eventsBetween(a: Snapshot, b: Snapshot): WatchEvent[] {
  const out: WatchEvent[] = [];
  const key = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  for (const list of ['nodePools', 'nodeClaims', 'nodes', 'pods', 'pdbs'] as const) {
    const before = new Map((a[list] as KubeObject[]).map((o) => [key(o), o]));
    const after = new Set((b[list] as KubeObject[]).map(key));
    for (const o of b[list] as KubeObject[]) if (before.get(key(o)) !== o) out.push({ type: 'MODIFIED', object: o });
    for (const [k, o] of before) if (!after.has(k)) out.push({ type: 'DELETED', object: o });
  }
  return out;
}

/** The snapshot's lists in list order (namespace, then name), as a LiveIndex starts from them. */
function listOrder(snap: Snapshot): Snapshot {
  const sorted = <T extends KubeObject>(xs: T[]) => [...xs].sort(byNamespaceAndName);
  return {
    ...snap,
    nodePools: sorted(snap.nodePools),
    nodeClaims: sorted(snap.nodeClaims),
    nodes: sorted(snap.nodes),
    pods: sorted(snap.pods),
    pdbs: sorted(snap.pdbs),
  };
}

/** A round's edit, or only the one thing of an `only` round (the PDB toggled, time, a policy). */
function alone<
  E extends {
    only?: string;
    nodes: unknown[];
    mark: number | null;
    drop: number | null;
    dropClaim?: number | null;
    add?: unknown[];
    laterMin: number;
    after: { at: number; min: number } | null;
    pdb: 'keep' | 'open' | 'block' | 'status';
  },
>(e: E, pdbBlocks: boolean): E {
  if (e.only === undefined) return e;
  const machines = e.only === 'machines';
  return {
    ...e,
    pods: [],
    nodes: machines ? e.nodes : [],
    pool: null,
    mark: machines ? e.mark : null,
    drop: machines ? e.drop : null,
    dropClaim: machines ? e.dropClaim : null,
    add: machines ? e.add : [],
    after: e.only === 'policy' ? (e.after ?? { at: 0, min: 0 }) : null,
    laterMin: e.only === 'time' ? e.laterMin : 0,
    pdb: e.only !== 'pdb' ? 'keep' : pdbBlocks ? 'open' : 'block',
  };
}

interface MachineEdit {
  drop: number | null;
  dropClaim?: number | null;
  add?: { pool: number; joined: boolean; cpu: string }[];
}

const machinesChange = (e: MachineEdit): boolean => e.drop !== null || e.dropClaim != null || (e.add ?? []).length > 0;

/**
 * Machines gone and come, in place in `nodes` and `nodeClaims`; `added` numbers the new ones
 * (past the generated machines; the pool's octet puts their names among the others). Returns
 * the next number.
 */
function machinesEdited(e: MachineEdit, nodes: Node[], nodeClaims: NodeClaim[], pools: number, added: number): number {
  if (e.drop !== null && nodes.length > 1) nodes.splice(e.drop % nodes.length, 1);
  if (e.dropClaim != null) {
    // Some Node stays (the rounds mark one).
    const at = e.dropClaim % nodeClaims.length;
    const i = nodes.findIndex((n) => n.spec.providerID === nodeClaims[at].status?.providerID);
    if (i < 0 || nodes.length > 1) {
      nodeClaims.splice(at, 1);
      if (i >= 0) nodes.splice(i, 1);
    }
  }
  for (const a of e.add ?? []) {
    const { nodeClaim, node } = makeNodeClaimAndNode(`pool-${a.pool % pools}`, 20 + added++);
    node.status!.allocatable = { ...node.status!.allocatable, cpu: a.cpu };
    nodeClaims.push(nodeClaim);
    if (a.joined) nodes.push(node);
  }
  return added;
}

/** The env of the next round: a machine marked or unmarked, a pool's consolidateAfter changed, time passed. */
function editedEnv(
  env: SimulationEnv,
  edit: { mark: number | null; after: { at: number; min: number } | null; laterMin: number },
  nodes: readonly Node[],
): SimulationEnv {
  let marked = env.marked;
  if (edit.mark !== null) {
    const id = nodes[edit.mark % nodes.length].spec.providerID!;
    const m = new Set(marked);
    if (!m.delete(id)) m.add(id);
    marked = m;
  }
  let policyFor = env.policyFor;
  if (edit.after !== null) {
    const pool = `pool-${edit.after.at % 3}`;
    const seconds = edit.after.min * 60;
    const before = policyFor;
    policyFor = (p) => (p === pool ? ({ consolidateAfterSeconds: seconds } as PolicySpec) : before(p));
  }
  return { ...env, marked, policyFor, now: env.now + edit.laterMin * 60_000 };
}

/**
 * What a caller passing `enough` reads of a move's outcome (method.ts Enough): no move when a pod
 * found no place or more replacements are needed, else the whole outcome.
 */
function decided(sim: MoveSimulation, enough: Enough): unknown {
  if (!sim.ok) return 'no move';
  return sim.replacements.length > enough.replacements ? 'no move' : sim;
}

describe('SimulationPass', () => {
  it('places, rejects and plans exactly as the per-move rebuild, for every move of a shared pass', () => {
    fc.assert(
      fc.property(clusterArb, fc.boolean(), (raw, consolidationFirst) => {
        const { index, env } = build(raw);
        const pass = new SimulationPass(index, env);
        // Both kinds from one pass (they share pods and pools), interleaved.
        for (const [i, moving] of moves(index, raw.order)
          .flatMap((m) => [m, m])
          .entries()) {
          const consolidation = (i % 2 === 0) === consolidationFirst;
          const fast = pass.schedule(moving, consolidation);
          const naive = runSimulation(index, moving, consolidation, env).result;
          expect(plain(fast)).toEqual(plain(naive));
          const candidates = moving.map((sn) =>
            toCandidate(sn, sn.node?.metadata.labels?.['karpenter.sh/nodepool'] ?? '', TYPES),
          );
          expect(pass.simulate(candidates, consolidation)).toEqual(simulateMove(index, candidates, consolidation, env));
          // A caller that reads less lets the run stop early: what it reads is the same.
          const whole = simulateMove(index, candidates, consolidation, env);
          for (const enough of [{ replacements: 0 }, { replacements: 1 }, { replacements: Infinity }]) {
            const early = pass.simulate(candidates, consolidation, enough);
            expect(decided(early, enough)).toEqual(decided(whole, enough));
            // Stopped at its first pod without a place, a run names that pod first, as the whole run does.
            if (enough.replacements === Infinity && !whole.ok) expect(whole.error!.startsWith(early.error!)).toBe(true);
          }
        }
      }),
      { numRuns: 120 },
    );
  });

  // The runtime's incremental path: a SchedulingCache kept across indexes and passes, each next
  // index sharing most objects with the last and replacing some (pods moved, removed, finished
  // or turned into DaemonSet pods; nodes retainted or resized; a pool reweighted or retainted),
  // as writes do between ticks; some rounds change nothing (the last base is taken again) and
  // some let time pass (consolidateAfter windows close: other SimNodes for the same machines).
  // Both kinds of simulation run in every pass, so both kinds of kept base are exercised.
  it('decides the same with scheduling state kept from earlier indexes and passes', () => {
    const editArb = fc.record({
      pods: fc.array(fc.record({ at: fc.nat(), to: fc.integer({ min: -1, max: 7 }), kind: fc.nat(4) }), {
        maxLength: 8,
      }),
      nodes: fc.array(fc.record({ at: fc.nat(), taint: fc.boolean(), cpu: fc.constantFrom('950m', '3920m') }), {
        maxLength: 3,
      }),
      pool: fc.option(fc.record({ at: fc.nat(), weight: fc.integer({ min: 0, max: 3 }), taint: fc.boolean() })),
      laterMin: fc.constantFrom(0, 0, 4, 8),
      // 'status': a new PDB object with the same rule (its status moves with every eviction).
      pdb: fc.constantFrom('keep', 'keep', 'open', 'block', 'status'),
      // A machine marked (or no longer marked) for disruption: leaves (or joins) the capacity.
      mark: fc.option(fc.nat()),
      // A Node gone (its NodeClaim stays, unjoined, at the end of the machines): machines move places.
      drop: fc.option(fc.nat()),
      // Machines that come: a NodeClaim with its Node (placed among the Nodes by name) or one no
      // Node joined yet (among the unjoined NodeClaims); with `drop`, some go and some come at once.
      // A NodeClaim gone with its Node if it has one (the whole machine leaves, often from the end).
      dropClaim: fc.option(fc.nat()),
      add: fc.array(fc.record({ pool: fc.nat(2), joined: fc.boolean(), cpu: fc.constantFrom('950m', '3920m') }), {
        maxLength: 2,
      }),
      // A pool's policy given another consolidateAfter (its nodes' destination state changes with no object).
      after: fc.option(fc.record({ at: fc.nat(), min: fc.constantFrom(0, 5, 10) })),
      // Rounds that change one thing only: the PDB alone changes which pods may move but no
      // node, so the base (and its kept move outcomes) is taken again; time alone may or may not.
      // A policy alone changes no object at all. Machines alone (retainted, resized, marked,
      // gone, come) keep the pools: the next base is derived from the last by the SimNodes that
      // left and came.
      only: fc.constantFrom(undefined, undefined, 'pdb', 'time', 'policy', 'machines', 'machines'),
    });
    fc.assert(
      fc.property(
        clusterArb,
        fc.array(editArb, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.boolean(),
        (raw, edits, consolidationFirst, live) => {
          const built = build(raw);
          let added = 0;
          // Live: each next index from watch events, keeping the StateNodes of unchanged machines
          // in place (as the runtime's view does), so the cache re-reads only the changed places.
          const liveIndex = live ? new LiveIndex(listOrder(built.index.snapshot)) : undefined;
          let index = liveIndex?.current() ?? built.index;
          let env = built.env;
          const cache = new SchedulingCache();
          // What left and came between two outputs of a PassPlaces (here: the machines neither
          // deleting nor marked) is exactly the difference of the two (the derived bases rely on it).
          const places = new PassPlaces<StateNode>((sn, e) => ({
            value: deletingOrMarked(sn, e) ? undefined : sn,
            until: Infinity,
          }));
          const outputs: StateNode[][] = [];
          const follow = (ix: ClusterIndex, e: SimulationEnv) => {
            // The DaemonSet pods bound under a name no Node has (a dropped Node's), kept across indexes.
            const stray = ix.snapshot.pods
              .filter((p) => isDaemonSetPod(p) && p.spec.nodeName && !ix.nodesByName.has(p.spec.nodeName))
              .map((p) => p.spec.nodeName);
            expect(new Set(cache.strayDaemonSetPods(ix))).toEqual(new Set(stray));
            const out = places.answers(ix, e);
            for (const [k, was] of outputs.entries()) {
              const change = places.changesBetween(was, out);
              if (k === outputs.length - 1) expect(change).toBeDefined();
              if (change === undefined) continue;
              expect(new Set(change.gone)).toEqual(new Set(was.filter((x) => !out.includes(x))));
              expect(new Set(change.came)).toEqual(new Set(out.filter((x) => !was.includes(x))));
            }
            outputs.push(out);
          };
          const check = (pass: SimulationPass, ix: ClusterIndex, e: SimulationEnv) => {
            for (const [i, moving] of moves(ix, raw.order).entries()) {
              const consolidation = (i % 2 === 0) === consolidationFirst;
              expect(plain(pass.schedule(moving, consolidation))).toEqual(
                plain(runSimulation(ix, moving, consolidation, e).result),
              );
              expect(plain(pass.schedule(moving, !consolidation))).toEqual(
                plain(runSimulation(ix, moving, !consolidation, e).result),
              );
              // Move outcomes, which a base taken again keeps from an earlier pass.
              const candidates = moving.map((sn) =>
                toCandidate(sn, sn.node?.metadata.labels?.['karpenter.sh/nodepool'] ?? '', TYPES),
              );
              for (const c of [consolidation, !consolidation])
                expect(pass.simulate(candidates, c)).toEqual(simulateMove(ix, candidates, c, e));
            }
          };
          check(new SimulationPass(index, env, cache), index, env);
          follow(index, env);
          for (const e of edits) {
            const edit = alone(e, index.snapshot.pdbs[0].spec.maxUnavailable === 0);
            const snap = index.snapshot;
            const pods = [...snap.pods];
            const nodes = [...snap.nodes];
            const nodePools = [...snap.nodePools];
            const nodeClaims = [...snap.nodeClaims];
            const names = nodes.map((n) => n.metadata.name);
            for (const e of edit.pods) {
              if (pods.length === 0) break;
              const i = e.at % pods.length;
              const pod = structuredClone(pods[i]);
              if (e.kind === 0) pods.splice(i, 1);
              else {
                if (e.kind === 1) pod.spec.nodeName = e.to < 0 ? undefined : names[e.to % names.length];
                if (e.kind === 2) pod.status = { ...pod.status, phase: 'Succeeded' };
                if (e.kind === 3)
                  pod.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'ds' }];
                if (e.kind === 4) pod.spec.containers = [{ name: 'c', resources: { requests: { cpu: '2' } } }];
                pods[i] = pod;
              }
            }
            for (const e of edit.nodes) {
              const i = e.at % nodes.length;
              const node = structuredClone(nodes[i]);
              if (e.taint) node.spec.taints = [...(node.spec.taints ?? []), TAINT];
              node.status!.allocatable = { ...node.status!.allocatable, cpu: e.cpu };
              nodes[i] = node;
            }
            if (edit.pool) {
              const i = edit.pool.at % nodePools.length;
              const np = structuredClone(nodePools[i]);
              np.spec.weight = edit.pool.weight;
              np.spec.template!.spec!.taints = edit.pool.taint ? [TAINT] : [];
              nodePools[i] = np;
            }
            added = machinesEdited(edit, nodes, nodeClaims, nodePools.length, added);
            let pdbs = snap.pdbs;
            if (edit.pdb !== 'keep') {
              const pdb = structuredClone(pdbs[0]);
              if (edit.pdb === 'status') pdb.status = { ...pdb.status, disruptionsAllowed: 1 };
              else pdb.spec.maxUnavailable = edit.pdb === 'open' ? 1 : 0;
              pdbs = [pdb];
            }
            const changed =
              edit.pods.length + edit.nodes.length > 0 ||
              edit.pool !== null ||
              edit.pdb !== 'keep' ||
              machinesChange(edit);
            if (changed) {
              const next = { ...snap, pods, nodes, nodeClaims, nodePools, pdbs };
              index = liveIndex ? liveIndex.apply(eventsBetween(snap, listOrder(next))) : indexCluster(next);
            }
            env = editedEnv(env, edit, nodes);
            check(new SimulationPass(index, env, cache), index, env);
            follow(index, env);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('merges presorted parts as byDescendingSize sorts their concatenation', () => {
    const sizedArb = fc.array(
      fc.record({
        cpu: fc.constantFrom(0, 0.5, 1, 2),
        memory: fc.constantFrom(0, 1, 2),
        node: fc.constantFrom('a', 'b'),
      }),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(fc.array(sizedArb, { minLength: 1, maxLength: 4 }), fc.boolean(), (raw, skipB) => {
        let n = 0;
        const parts = raw.map((part) =>
          part.map((x) => ({
            ...x,
            pod: makePod(`m${n++}`, undefined, { requests: { cpu: String(x.cpu), memory: `${x.memory}Gi` } }),
          })),
        );
        const sorted = parts.map((part) =>
          byDescendingSize(part.map((x) => x.pod)).map((p) => part.find((x) => x.pod === p)!),
        );
        const kept = (x: { node?: string }) => !(skipB && x.node === 'b');
        const merged = mergeBySize(sorted, skipB ? (x) => !kept(x) : undefined);
        expect(merged.map(podId)).toEqual(
          byDescendingSize(
            parts
              .flat()
              .filter(kept)
              .map((x) => x.pod),
          ).map(podId),
        );
      }),
      { numRuns: 300 },
    );
  });

  // A run skips the first slots of a fitting list that it left out or changed; a slot one pod's
  // topology refused must not be skipped for the next pod of the same shape (same requests,
  // another app) — here the plain pod belongs on node 0, where the anti-affine pod may not go.
  it('still offers a slot that topology refused one pod to the next pod of the same shape', () => {
    const node = (cpu: '3920m') => ({
      pool: 0,
      type: 'm5.xlarge',
      zone: 'us-west-2a',
      spot: false,
      cpu,
      initialized: true,
      deleting: false,
      marked: false,
      tainted: false,
      lastPodEventMinAgo: 30,
    });
    const raw: Raw = {
      pools: [{ weight: 0, tainted: false, consolidateAfterMin: 0 }],
      nodes: [node('3920m'), node('3920m'), node('3920m'), node('3920m')],
      pods: [
        { node: 0, cpu: '250m', memory: '128Mi', kind: 'hostAnti', zone: 'us-west-2a' },
        { node: 3, cpu: '1', memory: '128Mi', kind: 'hostAnti', zone: 'us-west-2a' },
        { node: 3, cpu: '1', memory: '128Mi', kind: 'plain', zone: 'us-west-2a' },
      ],
      order: [],
    };
    const { index, env } = build(raw);
    const [n0, n1, , n3] = index.stateNodes;
    const moving = [n1, n3];
    const fast = pass(index, env).schedule(moving, false);
    expect(plain(fast)).toEqual(plain(runSimulation(index, moving, false, env).result));
    const byName = new Map([...fast.placements].map(([p, at]) => [p.metadata.labels?.app, at]));
    expect(byName.get('plain')).toEqual({ node: n0.name });
  });

  it('really differs when the input differs (the comparison is not vacuous)', () => {
    const raw: Raw = {
      pools: [{ weight: 0, tainted: false, consolidateAfterMin: 0 }],
      nodes: [0, 1].map(() => ({
        pool: 0,
        type: 'm5.large',
        zone: 'us-west-2a',
        spot: false,
        cpu: '1930m',
        initialized: true,
        deleting: false,
        marked: false,
        tainted: false,
        lastPodEventMinAgo: 30,
      })),
      pods: [
        { node: 0, cpu: '1', memory: '128Mi', kind: 'plain', zone: 'us-west-2a' },
        { node: 1, cpu: '1500m', memory: '128Mi', kind: 'plain', zone: 'us-west-2a' },
      ],
      order: [],
    };
    const { index, env } = build(raw);
    const pass = new SimulationPass(index, env);
    const [a, b] = index.stateNodes;
    // The 1-cpu pod of one node does not fit beside the 1.5-cpu pod of the other: a new claim each time.
    expect(plain(pass.schedule([a], true))).not.toEqual(plain(pass.schedule([b], true)));
    expect(pass.schedule([a], true).newNodeClaims).toHaveLength(1);
    expect(pass.schedule([], true).newNodeClaims).toHaveLength(0);
  });
});
