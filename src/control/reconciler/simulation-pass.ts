// SPDX-License-Identifier: Apache-2.0
// The scheduling simulations of one disruption pass, built once (KARPENTER.md#scheduling-simulation): the existing
// capacity (every node not deleting or marked), the pending pods, the pods of deleting nodes
// and the prepared pools are the same for every candidate, so each candidate's move only
// leaves its nodes out and adds its currently reschedulable pods. Same decisions as
// simulateMove (move-simulation.ts), which rebuilds everything per move. The pods a move places
// are put in placing order by merging parts sorted once per pass (pending, deleting nodes') with
// the move's own. With a SchedulingCache, a base whose nodes and pools are the same objects as the
// last one's is that base again, and otherwise keeps the slots of unchanged nodes (prepared.ts);
// a base taken again also keeps its moves' outcomes (KeptMoves).
import type { ClusterIndex, StateNode } from '../../core/cluster/state.js';
import type { Pod } from '../../core/cluster/types.js';
import { isCurrentlyReschedulable, simNodeFromState } from '../../world/scheduling/from-state.js';
import { PreparedScheduling } from '../../world/scheduling/prepared.js';
import { podRequests } from '../../core/cluster/resources.js';
import type { SchedulingCache, PreparedPools } from '../../world/scheduling/scheduling-cache.js';
import {
  launchableZonesOf,
  preparePools,
  type SchedulingResult,
  type SimNode,
} from '../../world/scheduling/simulate.js';
import type { Candidate } from './methods/candidates.js';
import type { Enough, MoveSimulation } from './methods/method.js';
import {
  daemonSetPods,
  deletingOrMarked,
  destinationBlocked,
  isPending,
  poolTemplate,
  type SimulationEnv,
} from '../../world/scheduling/cluster-simulation.js';
import { toMoveSimulation } from './move-simulation.js';
import { sameItems } from '../../world/scheduling/same-items.js';
import { podRequirementAlternatives } from '../../world/scheduling/pod-spec.js';
import { allowsLabel } from '../../core/cluster/requirements.js';
import { LABEL_CAPACITY_TYPE } from '../../core/cluster/types.js';

/** A pod with the sizes byDescendingSize (simulate.ts) orders by; `node`: the deleting node it is on. */
interface Sized {
  pod: Pod;
  cpu: number;
  memory: number;
  node?: string;
}

function sized(pod: Pod, node?: string): Sized {
  const r = podRequests(pod);
  return { pod, cpu: r.cpu ?? 0, memory: r.memory ?? 0, ...(node !== undefined && { node }) };
}

/**
 * A list of pods with their sizes, kept while the list is the same object: a machine's
 * reschedulable pods are (pass-nodes.ts keeps them per machine), and a consolidation pass puts
 * the same machines' pods in order again for every move it tries.
 */
const sizedLists = new WeakMap<readonly Pod[], readonly Sized[]>();
function sizedAll(pods: readonly Pod[]): readonly Sized[] {
  let out = sizedLists.get(pods);
  if (out === undefined) sizedLists.set(pods, (out = pods.map((p) => sized(p))));
  return out;
}

/** byDescendingSize's comparison: negative when `a` goes first; 0 keeps the input order. */
const bySize = (a: Sized, b: Sized): number => b.cpu - a.cpu || b.memory - a.memory;

/** `xs` in byDescendingSize's order (Array.prototype.sort is stable: ties keep the input order). */
const sortedBySize = (xs: Sized[]): Sized[] => xs.sort(bySize);

/**
 * byDescendingSize(concatenation of the parts), each part already in that order: a stable sort
 * orders by size, then by place in the concatenation, so on a tie the earlier part goes first.
 * `skip`: items left out (deleting nodes that are moving), as if never in their part.
 */
export function mergeBySize(parts: readonly (readonly Sized[])[], skip?: (x: Sized) => boolean): Pod[] {
  const out: Pod[] = [];
  const at = parts.map(() => 0);
  for (;;) {
    let best = -1;
    for (let k = 0; k < parts.length; k++) {
      const part = parts[k];
      while (skip && at[k] < part.length && skip(part[at[k]])) at[k]++;
      if (at[k] >= part.length) continue;
      if (best < 0 || bySize(part[at[k]], parts[best][at[best]]) < 0) best = k;
    }
    if (best < 0) return out;
    out.push(parts[best][at[best]++].pod);
  }
}

/**
 * Whether the pod leaves a claim's capacity types as they are: no nodeSelector or required node
 * affinity term names karpenter.sh/capacity-type (the simulation reads no preferred terms).
 */
const spotOpen = (pod: Pod): boolean => podRequirementAlternatives(pod).every((alt) => !alt.has(LABEL_CAPACITY_TYPE));

/** What both kinds of simulation (consolidation or not) share: the pods every move places, and the pools. */
class PassPods {
  readonly pending: Pod[];
  readonly pendingSet: ReadonlySet<Pod>;
  /** Currently reschedulable pods of deleting or marked nodes, per node, in index order. */
  readonly deleting: { name: string; pods: Pod[] }[] = [];
  /** Pending pods and the pods in `deleting`: exempt from the destination rule. */
  readonly exempt = new Set<Pod>();
  readonly daemonSetPods: Pod[];
  readonly pools: PreparedPools;
  /** `pending`, and every pod of `deleting` (tagged with its node), each in placing order. */
  readonly pendingBySize: Sized[];
  readonly deletingBySize: Sized[];
  private readonly reschedulable = new Map<StateNode, Pod[]>();
  private spot: boolean | undefined;

  constructor(
    private readonly index: ClusterIndex,
    private readonly env: SimulationEnv,
    private readonly cache: SchedulingCache | undefined,
  ) {
    // Pending pods have no node: incrementally, only the index's unbound pods are read (kept in
    // snapshot order), and the machines deleting or marked come from the cache, which reads only
    // those that changed since its last pass; deriving everything reads every pod and machine, as
    // runSimulation does.
    this.pending = cache ? cache.pending(index) : index.snapshot.pods.filter(isPending);
    this.pendingSet = new Set(this.pending);
    for (const p of this.pending) this.exempt.add(p);
    const deleting = cache ? cache.deleting(index, env) : index.stateNodes.filter((sn) => deletingOrMarked(sn, env));
    for (const sn of deleting) {
      const pods = this.reschedulableOn(sn);
      this.deleting.push({ name: sn.name, pods });
      for (const p of pods) this.exempt.add(p);
    }
    this.pendingBySize = sortedBySize(this.pending.map((p) => sized(p)));
    this.deletingBySize = sortedBySize(this.deleting.flatMap((d) => d.pods.map((p) => sized(p, d.name))));
    this.daemonSetPods = cache?.noDaemonSetPods(index, env) ? [] : daemonSetPods(index.snapshot.pods);
    if (cache) this.pools = cache.pools(index.snapshot.nodePools, env.instanceTypes, this.daemonSetPods);
    else {
      const pools = preparePools({
        nodePools: index.snapshot.nodePools.map(poolTemplate),
        instanceTypes: env.instanceTypes,
        daemonSetPods: this.daemonSetPods,
      });
      this.pools = { pools, launchableZones: launchableZonesOf(pools) };
    }
  }

  /**
   * Every claim a move opens allows spot: each pool's requirements do, and no pending or deleting
   * node's pod narrows a claim's capacity types (a moving node's pods are asked per move).
   */
  spotStays(): boolean {
    return (this.spot ??=
      this.pools.pools.every((p) => allowsLabel(p.requirements, LABEL_CAPACITY_TYPE, 'spot')) &&
      this.pending.every(spotOpen) &&
      this.deleting.every((d) => d.pods.every(spotOpen)));
  }

  reschedulableOn(sn: StateNode): Pod[] {
    let pods = this.reschedulable.get(sn);
    if (!pods) {
      pods = this.cache
        ? this.cache.reschedulable(this.index, sn, this.env.now)
        : sn.pods.filter((p) => isCurrentlyReschedulable(this.index, p, this.env.now));
      this.reschedulable.set(sn, pods);
    }
    return pods;
  }
}

/** A copy of a move's outcome down to its arrays (callers may change what they are handed). */
function copyMove(sim: MoveSimulation): MoveSimulation {
  return {
    ...sim,
    replacements: sim.replacements.map((r) => ({
      ...r,
      requirements: r.requirements.map((q) => (q.values ? { ...q, values: [...q.values] } : { ...q })),
      instanceTypes: [...r.instanceTypes],
    })),
    ...(sim.destinations && { destinations: [...sim.destinations] }),
  };
}

/**
 * Outcomes of moves over one prepared base, kept across passes while the cache hands out that
 * base again. A move's run reads nothing but the base (its SimNodes — with their pods, sums and
 * consolidateAfter state — and pools), the pods it places (pending, the moving nodes' currently
 * reschedulable pods, the deleting nodes' pods) and which of them are exempt (from the same
 * lists), and PreparedScheduling.run is a function of those. So an outcome holds again when the
 * pending and deleting pods are the same as when it was kept (else all are dropped) and each
 * moving node's reschedulable pods are (they depend on time and PDBs, which the base does not see).
 */
class KeptMoves {
  private pending: readonly Pod[] = [];
  private deleting: readonly { name: string; pods: readonly Pod[] }[] = [];
  private readonly moves = new Map<string, { pods: readonly Pod[][]; sim: MoveSimulation }>();
  /**
   * The pass whose pods the kept outcomes are for: the last to adopt them. An earlier pass over
   * the same base (its pods may differ) neither reads nor adds outcomes any more.
   */
  private owner: PassPods | undefined;

  /** Drops every outcome unless this pass places the same pending and deleting pods. */
  adopt(shared: PassPods): this {
    this.owner = shared;
    const same =
      sameItems(this.pending, shared.pending) &&
      this.deleting.length === shared.deleting.length &&
      this.deleting.every((d, i) => d.name === shared.deleting[i].name && sameItems(d.pods, shared.deleting[i].pods));
    if (!same) {
      this.moves.clear();
      this.pending = shared.pending;
      this.deleting = shared.deleting;
    }
    return this;
  }

  /** The kept outcome of moving these nodes with these reschedulable pods (a copy: callers may change it). */
  get(shared: PassPods, key: string, pods: readonly Pod[][]): MoveSimulation | undefined {
    if (shared !== this.owner) return undefined;
    const k = this.moves.get(key);
    if (k === undefined || k.pods.length !== pods.length || !k.pods.every((p, i) => sameItems(p, pods[i])))
      return undefined;
    return copyMove(k.sim);
  }

  set(shared: PassPods, key: string, pods: readonly Pod[][], sim: MoveSimulation): void {
    if (shared === this.owner) this.moves.set(key, { pods, sim: copyMove(sim) });
  }
}

/** One kind of simulation over one cluster index at one instant. */
class PassBase {
  private readonly prepared: PreparedScheduling;
  private readonly kept: KeptMoves | undefined;

  constructor(
    index: ClusterIndex,
    consolidation: boolean,
    env: SimulationEnv,
    private readonly shared: PassPods,
    cache: SchedulingCache | undefined,
  ) {
    const nodes = cache
      ? cache.baseNodes(index, env, consolidation)
      : index.stateNodes
          .filter((sn) => !deletingOrMarked(sn, env))
          .map((sn) =>
            simNodeFromState(sn, consolidation ? { consolidateAfterBlocked: destinationBlocked(sn, env) } : {}),
          );
    const build = (from?: { prepared: PreparedScheduling; gone: SimNode[]; came: SimNode[] }) =>
      new PreparedScheduling(
        {
          nodes,
          nodePools: index.snapshot.nodePools.map(poolTemplate),
          instanceTypes: env.instanceTypes,
          consolidation,
          daemonSetPods: shared.daemonSetPods,
        },
        { ...shared.pools, ...(cache && { sums: (n) => cache.sums(n), slots: cache.slots }), ...(from && { from }) },
      );
    this.prepared = cache ? cache.prepared(consolidation, nodes, shared.pools, build) : build();
    this.kept = cache?.keptWith(this.prepared, () => new KeptMoves()).adopt(shared);
  }

  /** The outcome of this move, kept from an earlier pass over this base when it provably holds. */
  simulate(moving: readonly StateNode[], enough?: Enough): MoveSimulation {
    const { kept, shared } = this;
    if (kept === undefined) return toMoveSimulation(this.run(moving, enough), shared.pendingSet);
    const key = moving.map((sn) => sn.name).join('\n');
    const pods = moving.map((sn) => shared.reschedulableOn(sn));
    const known = kept.get(shared, key, pods);
    if (known !== undefined) return known;
    const result = this.run(moving, enough);
    const sim = toMoveSimulation(result, shared.pendingSet);
    // A stopped run lacks what another caller of this move may read: only whole outcomes are kept.
    if (!result.stopped) kept.set(shared, key, pods, sim);
    return sim;
  }

  /**
   * runSimulation's input for these moving nodes: pending, moving, then deleting nodes' pods,
   * handed over in placing order.
   */
  run(moving: readonly StateNode[], enough?: Enough): SchedulingResult {
    const { shared } = this;
    const without = new Set(moving.map((sn) => sn.name));
    const movingBySize: Sized[] = [];
    const movingPods = new Set<Pod>();
    for (const sn of moving)
      for (const x of sizedAll(shared.reschedulableOn(sn))) {
        movingBySize.push(x);
        movingPods.add(x.pod);
      }
    const skip = shared.deleting.some((d) => without.has(d.name)) ? (x: Sized) => without.has(x.node!) : undefined;
    // Incrementally only: deriving everything (the reference) runs such moves to their end.
    const spotStays =
      enough?.spotOnly && this.kept !== undefined && shared.spotStays() && movingBySize.every((x) => spotOpen(x.pod));
    const claims = spotStays ? 0 : enough?.replacements;
    const pods = mergeBySize([shared.pendingBySize, sortedBySize(movingBySize), shared.deletingBySize], skip);
    // A moving node that is itself deleting gives up its exemption, as in runSimulation.
    return this.prepared.run({
      pods,
      ordered: true,
      without,
      isExempt: (p) => shared.exempt.has(p) && !movingPods.has(p),
      ...(enough && { stop: { counts: (p: Pod) => !shared.pendingSet.has(p), claims: claims! } }),
    });
  }
}

/**
 * The simulations of one pass; each kind is prepared on its first use. With a SchedulingCache,
 * what did not change since an earlier index (machines, pools) is taken from it.
 */
export class SimulationPass {
  private readonly bases = new Map<boolean, PassBase>();
  private pods: PassPods | undefined;
  constructor(
    private readonly index: ClusterIndex,
    // A pool's policy is asked per node (consolidateAfter): the runtime answers it from its
    // per-pool memo (Runtime.policyForPool), so the pass asks it directly.
    private readonly env: SimulationEnv,
    private readonly cache?: SchedulingCache,
  ) {}

  private shared(): PassPods {
    return (this.pods ??= new PassPods(this.index, this.env, this.cache));
  }

  private base(consolidation: boolean): PassBase {
    let b = this.bases.get(consolidation);
    if (!b) {
      b = new PassBase(this.index, consolidation, this.env, this.shared(), this.cache);
      this.bases.set(consolidation, b);
    }
    return b;
  }

  /** The pending pods (runSimulation's `pending`), in snapshot order. */
  pending(): Pod[] {
    return this.shared().pending;
  }

  /** runSimulation's result for these moving nodes. */
  schedule(moving: readonly StateNode[], consolidation: boolean): SchedulingResult {
    return this.base(consolidation).run(moving);
  }

  simulate(candidates: readonly Candidate[], consolidation: boolean, enough?: Enough): MoveSimulation {
    return this.base(consolidation).simulate(
      candidates.map((c) => c.sn),
      enough,
    );
  }
}
