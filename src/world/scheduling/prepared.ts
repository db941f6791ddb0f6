// SPDX-License-Identifier: Apache-2.0
// SimulateScheduling prepared once for many runs over the same capacity: a consolidation pass
// simulates every candidate against the same cluster, differing only in which nodes are left
// out and which pods move. The nodes are sorted and summed once and kept as read-only targets;
// pools are prepared once; a run overlays the nodes it leaves out and copies a node's target
// only when a pod lands on it (the list of targets topology reads is made on its first read).
// Which unchanged nodes a pod fits (taints, node affinity, resources, the destination rule) is
// asked once per pod shape and node, and kept as an ordered list; only topology, which depends
// on the run, is asked per run. A node's slot, with what those checks answered, may be kept
// across bases (a SlotStore): a slot is derived from its SimNode alone, and the caller hands out
// the same SimNode only while the machine is the same.
// A base derived from an earlier one (the nodes that left and came) takes over its ordered lists
// too, at the slots' new places, and asks only the nodes that came. Within a run, the nodes it
// placed pods on are asked in full, but a node that failed a pod shape's node-local checks is not
// asked again for that shape (ChangedSlots): a run only takes room.
// The decisions are simulateScheduling's (simulate.ts), which stays the straightforward
// reference that test/reconciler/simulation-pass.property.test.ts compares this against.
import type { Pod } from '../../core/cluster/types.js';
import type { PlannedClaim, PreparedPool } from './new-claims.js';
import { requiredNodeAffinityTerms, requiredPodAntiAffinity } from './pod-spec.js';
import { nodeRequirementsFit, taintsTolerated, type PlacementTarget } from './predicates.js';
import {
  addInto,
  fitsWithin,
  podRequests,
  refreshRemaining,
  remaining,
  sumRequests,
  type Resources,
} from '../../core/cluster/resources.js';
import {
  byName,
  claimPlan,
  launchableZonesOf,
  placeOnClaims,
  preparePools,
  putTarget,
  byDescendingSize,
  type ClaimTargets,
  type SchedulingInput,
  type SchedulingResult,
  type SimNode,
} from './simulate.js';
import { topologyFit, type TopologyView } from './topology.js';

/** Everything of a SchedulingInput that stays the same across the runs of a pass. */
export type SchedulingBase = Omit<SchedulingInput, 'pods' | 'exemptFromDestinationRule'>;

export interface PreparedRun {
  /** Pods to place, as SchedulingInput.pods. */
  pods: readonly Pod[];
  /** Names of base nodes this run leaves out (the candidates). */
  without?: ReadonlySet<string>;
  /** SchedulingInput.exemptFromDestinationRule as a predicate. */
  isExempt?: (pod: Pod) => boolean;
  /** `pods` are already in placing order (byDescendingSize's): the caller merged presorted parts. */
  ordered?: boolean;
  /**
   * Stop once the outcome is decided for a caller that reads only whether every pod `counts`
   * holds for found a place (the first error among them) and whether at most `claims` new claims
   * hold such pods: at that first error, or at the claim past `claims`. The result is `stopped`.
   */
  stop?: { counts: (pod: Pod) => boolean; claims: number };
}

interface BaseSlot {
  node: SimNode;
  /** Never mutated: runs replace it with a copy when they place a pod here. */
  target: PlacementTarget & { pods: readonly Pod[]; requested: Resources };
  free: Resources;
  /** Bound pods with required anti-affinity (the view's holders). */
  holders: Pod[];
  /** admits(this slot, shape) by fitting key (fittingKey): a function of the node and the shape only. */
  admitted: Map<number, boolean>;
}

/**
 * Slots kept across PreparedSchedulings, by SimNode, one map per kind of simulation (admits reads
 * `consolidation`). Only for SimNodes that are never changed in place (SchedulingCache's).
 */
export class SlotStore {
  private readonly byKind = [new WeakMap<SimNode, BaseSlot>(), new WeakMap<SimNode, BaseSlot>()];

  /** @internal */
  of(consolidation: boolean): WeakMap<SimNode, BaseSlot> {
    return this.byKind[consolidation ? 1 : 0];
  }
}

/**
 * Base slots that fit one pod shape, in order; `scanned` slots have been looked at. `pod` and
 * `exempt` are the shape, for asking slots that a later base merges in; `idle` counts the bases
 * it was carried into without being asked (past CARRY_IDLE it is not carried further).
 */
interface Fitting {
  slots: number[];
  scanned: number;
  pod: Pod;
  exempt: boolean;
  idle: number;
}

/** Bases a fitting list is carried through unasked: a shape no pod has any longer stops costing its carry. */
const CARRY_IDLE = 8;

/** A slot a run placed pods on: copies the run owns and updates in place. */
interface RunSlot {
  target: PlacementTarget & { pods: Pod[]; requested: Record<string, number> };
  free: Record<string, number>;
}

const shapeIds = new WeakMap<Pod, number>();
/**
 * A number per distinct key: 150,000 pods have a handful of shapes (a key string each was ~45 MB
 * at 5k nodes, issue 16), and a number is a cheap key for the per-pass and per-slot maps. Bounded:
 * it starts over past 4,096 shapes, and numbers are never given out twice (slots kept across
 * bases remember answers by number), so a key seen again after that gets a new one.
 */
const idsByKey = new Map<string, number>();
let nextShapeId = 0;

/**
 * What the node-local checks look at: taints and node affinity (tolerations, nodeSelector,
 * required node affinity) and the requests. Pods with equal keys fit the same base nodes.
 */
function nodeShapeId(pod: Pod): number {
  let id = shapeIds.get(pod);
  if (id === undefined) {
    const key = JSON.stringify([
      pod.spec.tolerations ?? null,
      pod.spec.nodeSelector ?? null,
      requiredNodeAffinityTerms(pod) ?? null,
      podRequests(pod),
    ]);
    id = idsByKey.get(key);
    if (id === undefined) {
      if (idsByKey.size >= 4096) idsByKey.clear();
      id = nextShapeId++;
      idsByKey.set(key, id);
    }
    shapeIds.set(pod, id);
  }
  return id;
}

/** The key of a pod's fitting list and of its slots' answers: its shape and whether it is exempt. */
const fittingKey = (pod: Pod, exempt: boolean): number => nodeShapeId(pod) * 2 + (exempt ? 1 : 0);

/** A machine's sums as PreparedScheduling's slots hold them. */
export interface NodeSums {
  requested: Resources;
  free: Resources;
  /** Bound pods with required pod anti-affinity. */
  holders: Pod[];
}

/** The sums of one node, derived from scratch. */
export function nodeSums(node: SimNode): NodeSums {
  const requested = sumRequests(node.pods);
  return {
    requested,
    free: remaining(node.allocatable, requested),
    holders: node.pods.filter((p) => requiredPodAntiAffinity(p).length > 0),
  };
}

export class PreparedScheduling {
  private readonly slots: BaseSlot[];
  private readonly baseTargets: PlacementTarget[];
  /** Bound pods with required anti-affinity, by slot, in target order. */
  private readonly baseHolders: { pod: Pod; slot: number }[] = [];
  private readonly pools: PreparedPool[];
  private readonly launchableZones: string[];
  /**
   * Per node-shape key and exemption: the base slots, in order, whose unchanged node passes the
   * node-local checks (taints, node affinity, resources) and the destination rule, found as far
   * as runs have needed them. A run looks only at these and at the slots it changed itself.
   */
  private readonly fitting = new Map<number, Fitting>();
  /**
   * The places a run leaves out (1), all 0 between runs: run() clears those it set. A fresh
   * array per run was as long as the base, and a consolidation pass runs once per candidate.
   */
  private readonly left: Uint8Array;

  /**
   * `shared`: what the caller already derived and shares between bases — the pools (preparePools)
   * with their launchable zones, each node's sums (nodeSums), and the slots of nodes an earlier
   * base had (`slots`) — so that only what differs is built.
   */
  /**
   * `from`: an earlier PreparedScheduling of the same kind with the same pools, and which of its
   * nodes are gone from `base.nodes` and which came (PassNodes.changesBetween): its slots are
   * taken in their order with those left out and these merged in by name, the order sorting
   * `base.nodes` by name gives — when no name is held twice (then the nodes are sorted again,
   * as are they without `from`).
   */
  constructor(
    private readonly base: SchedulingBase,
    shared: {
      pools?: PreparedPool[];
      launchableZones?: string[];
      sums?: (node: SimNode) => NodeSums;
      slots?: SlotStore;
      from?: { prepared: PreparedScheduling; gone: readonly SimNode[]; came: readonly SimNode[] };
    } = {},
  ) {
    const sums = shared.sums ?? nodeSums;
    const kept = shared.slots?.of(base.consolidation ?? false);
    const slotOf = (node: SimNode): BaseSlot => {
      let slot = kept?.get(node);
      if (slot === undefined) {
        const { requested, free, holders } = sums(node);
        const target = {
          name: node.name,
          labels: node.labels,
          taints: node.taints,
          allocatable: node.allocatable,
          pods: node.pods,
          requested,
        };
        slot = { node, target, free, holders, admitted: new Map() };
        kept?.set(node, slot);
      }
      return slot;
    };
    const derived = shared.from && shared.from.prepared.slotsWith(shared.from.gone, shared.from.came, slotOf);
    this.slots = derived?.slots ?? [...base.nodes].sort(byName).map(slotOf);
    this.baseTargets = derived?.targets ?? this.slots.map((s) => s.target);
    this.left = new Uint8Array(this.slots.length);
    // Slots numbered again: the holders are listed again, unless there are none to list.
    if (derived === undefined || derived.holders)
      this.slots.forEach((s, i) => {
        for (const pod of s.holders) this.baseHolders.push({ pod, slot: i });
      });
    if (derived !== undefined) this.carryFitting(shared.from!.prepared, derived.drop, derived.came);
    this.pools = shared.pools ?? preparePools(base);
    this.launchableZones = shared.launchableZones ?? launchableZonesOf(this.pools);
  }

  /**
   * This base's slots and targets without the `gone` nodes' and with those of the `came` nodes
   * put in by name (a few splices of copies: a drift tick changes a few machines of thousands),
   * and whether any slot may hold anti-affinity holders; undefined when a gone node is not here or
   * a name would be held twice (sorting by name would then order those by their place in the
   * nodes, which this does not know).
   */
  private slotsWith(
    gone: readonly SimNode[],
    came: readonly SimNode[],
    slotOf: (node: SimNode) => BaseSlot,
  ):
    | { slots: BaseSlot[]; targets: PlacementTarget[]; holders: boolean; drop: number[]; came: Set<BaseSlot> }
    | undefined {
    const drop: number[] = [];
    const cameSlots = new Set<BaseSlot>();
    for (const node of gone) {
      const at = this.slotNamed(node.name);
      if (at === undefined || this.slots[at].node !== node) return undefined;
      drop.push(at);
    }
    const slots = this.slots.slice();
    const targets = this.baseTargets.slice();
    for (const at of drop.sort((a, b) => b - a)) {
      slots.splice(at, 1);
      targets.splice(at, 1);
    }
    let holders = this.baseHolders.length > 0;
    for (const node of came) {
      const slot = slotOf(node);
      cameSlots.add(slot);
      // The first slot whose name is not before this one's.
      let lo = 0;
      let hi = slots.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (slots[mid].node.name < node.name) lo = mid + 1;
        else hi = mid;
      }
      if (lo < slots.length && slots[lo].node.name === node.name) return undefined;
      slots.splice(lo, 0, slot);
      targets.splice(lo, 0, slot.target);
      if (slot.holders.length > 0) holders = true;
    }
    return { slots, targets, holders, drop, came: cameSlots };
  }

  /**
   * `from`'s fitting lists for these slots, which are its slots without those at `drop` (its
   * indices) and with the `came` slots merged in. A kept slot's answers are its node's, so its
   * place in a list only moves; a came slot is asked where the list was scanned. A drift tick
   * changes a few machines of thousands, and scanning every slot again for every shape was a fifth
   * of a tick at 5,000 nodes.
   */
  private carryFitting(from: PreparedScheduling, drop: readonly number[], came: ReadonlySet<BaseSlot>): void {
    const oldN = from.slots.length;
    const dropped = new Uint8Array(oldN);
    for (const j of drop) dropped[j] = 1;
    // newIndex[j]: where the old slot j is now (-1: dropped); cameAt: the came slots' places, in order.
    const newIndex = new Int32Array(oldN);
    const cameAt: number[] = [];
    let j = 0;
    for (let q = 0; q < this.slots.length; q++) {
      if (came.has(this.slots[q])) {
        cameAt.push(q);
        continue;
      }
      while (dropped[j]) newIndex[j++] = -1;
      newIndex[j++] = q;
    }
    while (j < oldN) newIndex[j++] = -1;
    for (const [key, f] of from.fitting) {
      if (f.idle >= CARRY_IDLE) continue;
      // Scanned up to the first kept slot the old list had not looked at (all, when there is none).
      let scanned = this.slots.length;
      for (let k = f.scanned; k < oldN; k++)
        if (newIndex[k] >= 0) {
          scanned = newIndex[k];
          break;
        }
      const slots: number[] = [];
      let c = 0;
      const askCame = (before: number): void => {
        for (; c < cameAt.length && cameAt[c] < before; c++)
          if (this.admitsBase(this.slots[cameAt[c]], key, f.pod, f.exempt)) slots.push(cameAt[c]);
      };
      for (const k of f.slots) {
        const at = newIndex[k];
        if (at < 0) continue;
        askCame(at);
        slots.push(at);
      }
      askCame(scanned);
      this.fitting.set(key, { slots, scanned, pod: f.pod, exempt: f.exempt, idle: f.idle + 1 });
    }
  }

  /**
   * The slot of the node with this name, by binary search over the name order (runs leave out
   * few nodes; a map of every name cost more to build per base than the searches).
   */
  private slotNamed(name: string): number | undefined {
    let lo = 0;
    let hi = this.slots.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.slots[mid].node.name;
      if (at === name) return mid;
      if (at < name) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  private admits(s: BaseSlot, pod: Pod, exempt: boolean, target: PlacementTarget, free: Resources): boolean {
    if (this.base.consolidation && s.node.consolidateAfterBlocked && !exempt) return false;
    return (
      (taintsTolerated(pod, target.taints) ?? nodeRequirementsFit(pod, target)) === undefined &&
      fitsWithin(podRequests(pod), free)
    );
  }

  /** admits(s, pod) on the slot's unchanged node, asked once per slot and fitting key. */
  private admitsBase(s: BaseSlot, key: number, pod: Pod, exempt: boolean): boolean {
    let ok = s.admitted.get(key);
    if (ok === undefined) {
      ok = this.admits(s, pod, exempt, s.target, s.free);
      s.admitted.set(key, ok);
    }
    return ok;
  }

  private fittingFor(key: number, pod: Pod, exempt: boolean): Fitting {
    let f = this.fitting.get(key);
    if (!f) {
      f = { slots: [], scanned: 0, pod, exempt, idle: 0 };
      this.fitting.set(key, f);
    } else f.idle = 0;
    return f;
  }

  /** The k-th fitting base slot, scanning further only when no run has needed it yet; Infinity past the last. */
  private fittingAt(f: Fitting, k: number, key: number, pod: Pod, exempt: boolean): number {
    while (k >= f.slots.length && f.scanned < this.slots.length) {
      const j = f.scanned++;
      if (this.admitsBase(this.slots[j], key, pod, exempt)) f.slots.push(j);
    }
    return k < f.slots.length ? f.slots[k] : Infinity;
  }

  /**
   * simulateScheduling's first fit: the first slot in name order that passes the node-local and
   * topology checks. Unchanged slots come from the pod's fitting list (only topology is left to
   * ask); slots this run changed are checked in full and merged in by position, each from the
   * list of those that may still admit the pod's fitting key (ChangedSlots). `skip`: per
   * fitting list, how many of its first slots this run has left out or changed — they stay so for
   * the rest of the run (`left` is fixed, the overlay only grows), so later pods start after them.
   */
  private firstFit(
    pod: Pod,
    exempt: boolean,
    overlay: ReadonlyMap<number, RunSlot>,
    changed: ChangedSlots,
    view: TopologyView,
    skip: Map<Fitting, number>,
  ): number {
    const { left } = this;
    const key = fittingKey(pod, exempt);
    const fitting = this.fittingFor(key, pod, exempt);
    const live = changed.mayAdmit(key);
    let c = 0;
    let prefix = true;
    for (let k = skip.get(fitting) ?? 0; ; k++) {
      const i = this.fittingAt(fitting, k, key, pod, exempt);
      // Changed slots before this one (sorted), checked against their run copy. A run copy has
      // its node's taints and labels, so where the unchanged node passed every check but the
      // resources, only the resources are left to ask.
      while (c < live.length && live[c] <= i) {
        const j = live[c];
        const o = overlay.get(j)!;
        const s = this.slots[j];
        const fits = this.admitsBase(s, key, pod, exempt)
          ? fitsWithin(podRequests(pod), o.free)
          : this.admits(s, pod, exempt, o.target, o.free);
        if (!fits && changed.shrinking) {
          live.splice(c, 1);
          continue;
        }
        if (fits && topologyFit(pod, o.target, view) === undefined) return j;
        c++;
      }
      if (i === Infinity) break;
      if (left[i] || overlay.has(i)) {
        if (prefix) skip.set(fitting, k + 1);
        continue;
      }
      prefix = false;
      if (topologyFit(pod, this.slots[i].target, view) === undefined) return i;
    }
    return -1;
  }

  run(r: PreparedRun): SchedulingResult {
    const { slots, left } = this;
    const n = slots.length;
    const leftAt: number[] = [];
    const leave = (i: number): void => {
      if (left[i]) return;
      left[i] = 1;
      leftAt.push(i);
    };
    for (const name of r.without ?? []) {
      const at = this.slotNamed(name);
      if (at === undefined) continue;
      // Every node of that name leaves, as the reference's filter by name has it.
      for (let i = at; i >= 0 && slots[i].node.name === name; i--) leave(i);
      for (let i = at + 1; i < n && slots[i].node.name === name; i++) leave(i);
    }
    leftAt.sort((a, b) => a - b);
    try {
      return this.runWithout(r, leftAt);
    } finally {
      for (const i of leftAt) left[i] = 0;
    }
  }

  /** run() once the places `leftAt` (ascending) are marked in `left`. */
  private runWithout(r: PreparedRun, leftAt: readonly number[]): SchedulingResult {
    const { slots, left } = this;
    const overlay = new Map<number, RunSlot>();
    const targets = new RunTargets(this.baseTargets, leftAt);
    const position = (i: number): number => {
      let before = 0;
      while (before < leftAt.length && leftAt[before] < i) before++;
      return i - before;
    };
    const holders: { pod: Pod; target: PlacementTarget }[] = [];
    for (const h of this.baseHolders) if (!left[h.slot]) holders.push({ pod: h.pod, target: slots[h.slot].target });
    const view: TopologyView = {
      get targets() {
        return targets.list();
      },
      antiAffinityHolders: holders,
      launchableZones: this.launchableZones,
      newHostnamePossible: this.pools.length > 0,
      version: 0,
    };
    const result: SchedulingResult = { placements: new Map(), newNodeClaims: [], errors: new Map() };
    const claims: PlannedClaim[] = [];
    const record = (pod: Pod, target: PlacementTarget): void => {
      view.version = (view.version ?? 0) + 1;
      if (requiredPodAntiAffinity(pod).length > 0) holders.push({ pod, target });
    };

    const changed = new ChangedSlots();
    const skip = new Map<Fitting, number>();
    const { stop } = r;
    /** The new claims holding a pod `stop` counts (once one does, it always will). */
    const counted = new Set<number>();
    for (const pod of r.ordered ? r.pods : byDescendingSize(r.pods)) {
      const exempt = r.isExempt?.(pod) ?? false;
      const at = this.firstFit(pod, exempt, overlay, changed, view, skip);
      if (at >= 0) {
        const s = slots[at];
        const requests = podRequests(pod);
        changed.placed(at, !overlay.has(at), requests);
        const target = this.place(overlay, at, pod, requests, targets, position(at), holders);
        record(pod, target);
        if (!s.node.initialized && !exempt) {
          result.errors.set(
            pod,
            `would schedule against uninitialized nodeclaim/${s.node.nodeClaim ?? ''}, node/${s.node.name}`,
          );
          if (stop?.counts(pod)) {
            result.stopped = true;
            break;
          }
        } else result.placements.set(pod, { node: s.node.name });
        continue;
      }
      const placed = placeOnClaims(pod, claims, this.pools, view, targets, record);
      if (typeof placed === 'number') result.placements.set(pod, { newNodeClaim: placed });
      else result.errors.set(pod, placed);
      if (stop?.counts(pod) && (typeof placed !== 'number' || counted.add(placed).size > stop.claims)) {
        result.stopped = true;
        break;
      }
    }
    result.newNodeClaims = claims.map(claimPlan);
    return result;
  }

  /** Adds the pod to slot `i`'s run copy (made on first use, replacing the base target in the view at `position`). */
  private place(
    overlay: Map<number, RunSlot>,
    i: number,
    pod: Pod,
    requests: Resources,
    targets: RunTargets,
    position: number,
    holders: { pod: Pod; target: PlacementTarget }[],
  ): PlacementTarget {
    const base = this.slots[i];
    let o = overlay.get(i);
    if (!o) {
      const target = { ...base.target, pods: [...base.target.pods], requested: { ...base.target.requested } };
      o = { target, free: { ...base.free } };
      overlay.set(i, o);
      targets.replace(position, o.target);
      for (const h of holders) if (h.target === base.target) h.target = o.target;
    }
    // The copies are this run's own: updated in place, free as remaining(allocatable, requested) is.
    const { target, free } = o;
    target.pods.push(pod);
    addInto(target.requested, requests);
    refreshRemaining(free, target.allocatable, target.requested, requests);
    return target;
  }
}

/**
 * A run's view of the targets: the base's but those left out, in name order, each replaced by its
 * run copy once the run places a pod there, then the new claims'. Only topology reads it whole, and
 * only for pods with topology terms or beside anti-affinity holders, so the list is made on its
 * first read: a single-node consolidation pass runs once per candidate, and each run copied the
 * base's targets (5,000 at 5,000 nodes). Without the copy, the bench's single-node pass at 5,000
 * nodes took 1.55 s against 1.92 s (one run each).
 */
class RunTargets implements ClaimTargets {
  private made: PlacementTarget[] | undefined;
  /** Before the list is made: the run copies by place in it, and the claims' targets. */
  private readonly copies = new Map<number, PlacementTarget>();
  private readonly claims: PlacementTarget[] = [];

  constructor(
    private readonly base: readonly PlacementTarget[],
    /** The base places left out, ascending. */
    private readonly leftAt: readonly number[],
  ) {}

  list(): PlacementTarget[] {
    if (this.made !== undefined) return this.made;
    const { base, leftAt } = this;
    let made: PlacementTarget[];
    if (leftAt.length === 0) made = base.slice();
    else {
      made = new Array<PlacementTarget>(base.length - leftAt.length);
      for (let i = 0, l = 0, t = 0; i < base.length; i++) {
        if (l < leftAt.length && leftAt[l] === i) l++;
        else made[t++] = base[i];
      }
    }
    for (const [at, target] of this.copies) made[at] = target;
    for (const target of this.claims) made.push(target);
    return (this.made = made);
  }

  /** The target at `position` (a base node's) becomes its run copy. */
  replace(position: number, target: PlacementTarget): void {
    if (this.made) this.made[position] = target;
    else this.copies.set(position, target);
  }

  put(next: PlacementTarget, previous?: PlacementTarget): void {
    putTarget(this.made ?? this.claims, next, previous);
  }
}

function insertSorted(xs: number[], x: number): void {
  let i = xs.length;
  while (i > 0 && xs[i - 1] > x) i--;
  xs.splice(i, 0, x);
}

/** Whether a pod with these requests gives its slot room: only by a negative one (the API server rejects them). */
function frees(requests: Resources): boolean {
  for (const k in requests) if (Object.hasOwn(requests, k) && requests[k] < 0) return true;
  return false;
}

/**
 * The slots a run has changed, and per fitting key those among them that may still admit a pod
 * of that key, in slot order. A run copy keeps its node's taints and labels and only loses room
 * as pods are placed on it, so once it fails a key's node-local checks (all of them functions of
 * the key, the node and its room) it fails them for the rest of the run, and firstFit drops it
 * from that key's list. A run that places the pending pods of a large drain changes hundreds of
 * slots, and asking every one of them again for every later pod was half of such a tick.
 */
/** Past this many new slots a key's list takes them by one sort, not an insertion (a shift of the list) each. */
const SORT_IN_PAST = 8;

class ChangedSlots {
  /** Changed slots in the order they changed. */
  private readonly log: number[] = [];
  private readonly byKey = new Map<number, { slots: number[]; merged: number }>();
  /** False once a placement may have given a slot room: from then on nothing is dropped. */
  shrinking = true;

  /**
   * A pod placed on `slot` (`first`: the run's first there). A pod that may give room back ends
   * the dropping: every list is made again from all changed slots.
   */
  placed(slot: number, first: boolean, requests: Resources): void {
    if (first) this.log.push(slot);
    if (this.shrinking && frees(requests)) {
      this.shrinking = false;
      this.byKey.clear();
    }
  }

  /** The key's list, with the slots changed since it was last asked for merged in (firstFit drops from it). */
  mayAdmit(key: number): number[] {
    let l = this.byKey.get(key);
    if (l === undefined) this.byKey.set(key, (l = { slots: [], merged: 0 }));
    const { log } = this;
    if (log.length - l.merged > SORT_IN_PAST) {
      for (; l.merged < log.length; l.merged++) l.slots.push(log[l.merged]);
      l.slots.sort((a, b) => a - b);
    } else for (; l.merged < log.length; l.merged++) insertSorted(l.slots, log[l.merged]);
    return l.slots;
  }
}
