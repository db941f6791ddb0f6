// SPDX-License-Identifier: Apache-2.0
// What a simulation pass reads from every machine of an index, kept from the last pass and
// derived again only where it can differ: which machines are deleting or marked, each other
// machine's SimNode (with its consolidateAfter destination state), and each machine's
// currently reschedulable pods. A new index from the live index (src/core/cluster/live-index.ts)
// keeps every unchanged StateNode object and logs which StateNodes went and came
// (stateNodeChanges), so a pass reads those alone; an index from elsewhere is compared with the
// last machine by machine. An answer that moves with time is derived again when `now` reaches the
// instant it can flip (kept in a DueNodes heap, as the verdict reuse does); one that reads PDBs,
// when the index's PDBs are other objects; a change of the marked set re-reads the machines of
// the providerIDs that joined or left it. Anything else (time went back, a pool's consolidateAfter
// changed) derives every machine again, which is what deriving it from scratch does.
import { DueNodes } from '../../core/eval/due-nodes.js';
import type { ClusterIndex, StateNode } from '../../core/cluster/state.js';
import { stateNodeChanges } from '../../core/cluster/live-index.js';
import type { Pod, PodDisruptionBudget } from '../../core/cluster/types.js';
import { deletingOrMarked, destinationBlockState, type SimulationEnv } from './cluster-simulation.js';
import { currentlyReschedulable } from './from-state.js';
import type { SimNode } from './simulate.js';

/**
 * The machines of one index and not the other, by comparing them: place by place while the
 * machines are the same (as an index from the same objects has them), else as sets.
 */
function machineChanges(
  prev: readonly StateNode[],
  next: readonly StateNode[],
): { gone: StateNode[]; came: StateNode[] } {
  const gone: StateNode[] = [];
  const came: StateNode[] = [];
  if (prev === next) return { gone, came };
  if (prev.length === next.length && prev.every((sn, i) => sn === next[i] || sn.name === next[i].name)) {
    for (let i = 0; i < next.length; i++)
      if (prev[i] !== next[i]) {
        gone.push(prev[i]);
        came.push(next[i]);
      }
    return { gone, came };
  }
  const had = new Set(prev);
  const has = new Set(next);
  for (const sn of prev) if (!has.has(sn)) gone.push(sn);
  for (const sn of next) if (!had.has(sn)) came.push(sn);
  return { gone, came };
}

/** Index order: the Nodes by name, then the NodeClaims no Node joined by name. */
function before(a: StateNode, b: StateNode): boolean {
  const sa = a.node ? 0 : 1;
  const sb = b.node ? 0 : 1;
  return sa !== sb ? sa < sb : a.name < b.name;
}

/** Past this many machines whose answer came or went, the output is listed again rather than spliced. */
const SPLICE_LIMIT = 64;

/** The providerIDs in one set and not the other. */
function difference(a: ReadonlySet<string>, b: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const x of a) if (!b.has(x)) out.add(x);
  for (const x of b) if (!a.has(x)) out.add(x);
  return out;
}

/** How many changes of its output a PassPlaces keeps for `changesBetween`. */
const CHANGE_LOG = 16;

/** What left and what came between two outputs of a PassPlaces (each value at most once). */
export interface PlacesChange<T> {
  gone: T[];
  came: T[];
}

/** One machine's answer: `value` (undefined: the machine is left out) holds while `now` < `until`. */
export interface PlaceAnswer<T> {
  value: T | undefined;
  until: number;
}

/**
 * A per-machine answer over the index's machines, kept across passes, and the answers that are
 * not undefined in index order: the same array while no answer changed. `derive` must read only
 * the StateNode, the marked set (through the providerID) and `now` (it gives the instant its answer
 * may change); whatever else it reads is checked by `unchanged` before the kept answers are used.
 *
 * Answers are kept by StateNode. Which machines changed since the last index comes from the live
 * index (stateNodeChanges: as many as the applied events touched), else from comparing the two
 * indexes' machines; the output is then spliced where answers came or went (the live index keeps
 * its machines in index order), or listed again from the index when many did or the index is not
 * a live one's.
 */
export class PassPlaces<T> {
  private index: ClusterIndex | undefined;
  private stateNodes: readonly StateNode[] = [];
  private now = -Infinity;
  private marked: ReadonlySet<string> = new Set();
  private readonly kept = new Map<StateNode, PlaceAnswer<T>>();
  /** The machines of the last index by providerID (a marked-set change re-reads those). */
  private readonly byProvider = new Map<string, StateNode[]>();
  /** When answers may change: machines by a number each push gets (a machine gone by then is skipped). */
  private due = new DueNodes();
  private dueMachines = new Map<number, StateNode>();
  private pushes = 0;
  /** The machines whose answer is defined, in index order, and those answers. */
  private order: StateNode[] = [];
  private out: T[] = [];
  /**
   * Each output handed out gets the next serial; a changed output also logs the values that
   * left and came (the last CHANGE_LOG of them), so a reader holding an older output learns
   * what differs (changesBetween) instead of comparing every place.
   */
  private serial = 0;
  private readonly serials = new WeakMap<readonly T[], number>();
  private log: { serial: number; gone: T[]; came: T[] }[] = [];

  constructor(
    private readonly derive: (sn: StateNode, env: SimulationEnv) => PlaceAnswer<T>,
    private readonly unchanged: (env: SimulationEnv) => boolean = () => true,
    private readonly reset: () => void = () => {},
  ) {}

  private remember(sn: StateNode, answer: PlaceAnswer<T>): void {
    this.kept.set(sn, answer);
    if (answer.until === Infinity) return;
    this.dueMachines.set(this.pushes, sn);
    this.due.push(answer.until, this.pushes++);
  }

  private track(sn: StateNode, on: boolean): void {
    const id = sn.providerID;
    if (id === undefined) return;
    // Mostly one machine per providerID: a short array is lighter than a set per machine.
    const list = this.byProvider.get(id);
    if (on) {
      if (list === undefined) this.byProvider.set(id, [sn]);
      else if (!list.includes(sn)) list.push(sn);
    } else if (list !== undefined) {
      const rest = list.filter((x) => x !== sn);
      if (rest.length === 0) this.byProvider.delete(id);
      else this.byProvider.set(id, rest);
    }
  }

  /** Every machine derived again (time went back, or something `derive` reads besides the machine changed). */
  private deriveAll(index: ClusterIndex, env: SimulationEnv): void {
    this.reset();
    this.kept.clear();
    this.byProvider.clear();
    this.due = new DueNodes();
    this.dueMachines = new Map();
    for (const sn of index.stateNodes) {
      this.remember(sn, this.derive(sn, env));
      this.track(sn, true);
    }
    this.listAgain(index);
    this.log = [];
  }

  /** `order` and `out` listed again from the index's machines. */
  private listAgain(index: ClusterIndex): void {
    this.order = [];
    this.out = [];
    for (const sn of index.stateNodes) {
      const value = this.kept.get(sn)?.value;
      if (value === undefined) continue;
      this.order.push(sn);
      this.out.push(value);
    }
  }

  /** The place of `sn` in `order` (found), or where it would go; by binary search in index order. */
  private placeOf(order: readonly StateNode[], sn: StateNode): number {
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(order[mid], sn)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * `order` and `out` with these machines' answers taken out and put in; false when a machine is
   * not where index order puts it (the caller lists them again).
   */
  private spliced(outs: readonly StateNode[], ins: readonly StateNode[]): boolean {
    const order = this.order.slice();
    const out = this.out.slice();
    for (const sn of outs) {
      const at = this.placeOf(order, sn);
      if (order[at] !== sn) return false;
      order.splice(at, 1);
      out.splice(at, 1);
    }
    for (const sn of ins) {
      const at = this.placeOf(order, sn);
      if (at < order.length && !before(sn, order[at])) return false;
      order.splice(at, 0, sn);
      out.splice(at, 0, this.kept.get(sn)!.value!);
    }
    this.order = order;
    this.out = out;
    return true;
  }

  answers(index: ClusterIndex, env: SimulationEnv): T[] {
    const served = this.out;
    if (env.now < this.now || !this.unchanged(env)) this.deriveAll(index, env);
    else {
      const fed = this.index && stateNodeChanges(this.index, index);
      const { gone, came } = fed ?? machineChanges(this.stateNodes, index.stateNodes);
      // Answers that leave the output (`outs`) and enter it (`ins`), with their values.
      const outs: StateNode[] = [];
      const ins: StateNode[] = [];
      const goneValues: T[] = [];
      const cameValues: T[] = [];
      for (const sn of gone) {
        const was = this.kept.get(sn);
        if (was === undefined) continue;
        this.kept.delete(sn);
        this.track(sn, false);
        if (was.value !== undefined) {
          outs.push(sn);
          goneValues.push(was.value);
        }
      }
      const redo = new Set<StateNode>(came);
      for (const sn of came) this.track(sn, true);
      const due: number[] = [];
      this.due.takeDue(env.now, due);
      for (const k of due) {
        const sn = this.dueMachines.get(k)!;
        this.dueMachines.delete(k);
        if (this.kept.has(sn)) redo.add(sn);
      }
      // Machines whose providerID joined or left the marked set.
      for (const id of difference(this.marked, env.marked))
        for (const sn of this.byProvider.get(id) ?? []) redo.add(sn);
      for (const sn of redo) {
        const was = this.kept.get(sn);
        const answer = this.derive(sn, env);
        this.remember(sn, answer);
        if (answer.value === was?.value) continue;
        if (was?.value !== undefined) {
          outs.push(sn);
          goneValues.push(was.value);
        }
        if (answer.value !== undefined) {
          ins.push(sn);
          cameValues.push(answer.value);
        }
      }
      if (outs.length + ins.length > 0) {
        const spliced = fed !== undefined && outs.length + ins.length <= SPLICE_LIMIT && this.spliced(outs, ins);
        if (!spliced) this.listAgain(index);
        this.log.push({ serial: this.serial + 1, gone: goneValues, came: cameValues });
        if (this.log.length > CHANGE_LOG) this.log.shift();
      }
    }
    this.index = index;
    this.stateNodes = index.stateNodes;
    this.now = env.now;
    this.marked = new Set(env.marked); // a copy: the caller's set may change later
    if (this.out !== served || this.serial === 0) this.serials.set(this.out, ++this.serial);
    return this.out;
  }
  /**
   * The values in `from` and not in `to` (gone) and in `to` and not in `from` (came), for two
   * outputs this PassPlaces handed out; undefined when that is not known (every place derived
   * again in between, more changes than the log keeps, or an output not from here).
   */
  changesBetween(from: readonly T[], to: readonly T[]): PlacesChange<T> | undefined {
    const a = this.serials.get(from);
    const b = this.serials.get(to);
    if (a === undefined || b === undefined || a > b) return undefined;
    if (a === b) return { gone: [], came: [] };
    const first = this.log.findIndex((e) => e.serial === a + 1);
    if (first < 0) return undefined;
    // A value that came and went again (or went and came back) in between cancels out.
    const gone = new Set<T>();
    const came = new Set<T>();
    for (const e of this.log.slice(first)) {
      if (e.serial > b) break;
      for (const v of e.gone) if (!came.delete(v)) gone.add(v);
      for (const v of e.came) if (!gone.delete(v)) came.add(v);
    }
    return { gone: [...gone], came: [...came] };
  }
}

/**
 * The existing capacity of one kind of pass (with or without consolidation): every machine not
 * deleting or marked as `simNode` makes it, in index order.
 */
export class PassNodes {
  /** consolidateAfterSeconds per pool as last read (consolidation only). */
  private afters = new Map<string, number | null | undefined>();
  private readonly places: PassPlaces<SimNode>;

  constructor(consolidation: boolean, simNode: (sn: StateNode, blocked: boolean | undefined) => SimNode) {
    this.places = new PassPlaces<SimNode>(
      (sn, env) => {
        if (deletingOrMarked(sn, env)) return { value: undefined, until: Infinity };
        if (!consolidation) return { value: simNode(sn, undefined), until: Infinity };
        const { blocked, until } = destinationBlockState(sn, env.now, (pool) => {
          const after = env.policyFor(pool)?.consolidateAfterSeconds;
          this.afters.set(pool, after);
          return after;
        });
        // Blocked before `until` (derived again then; again on a later pass if rounding kept it blocked).
        return { value: simNode(sn, blocked), until: blocked ? until : Infinity };
      },
      (env) => {
        for (const [pool, after] of this.afters)
          if (env.policyFor(pool)?.consolidateAfterSeconds !== after) return false;
        return true;
      },
      () => this.afters.clear(),
    );
  }

  nodes(index: ClusterIndex, env: SimulationEnv): SimNode[] {
    return this.places.answers(index, env);
  }

  /** The SimNodes that left and came between two outputs of `nodes` (PassPlaces.changesBetween). */
  changesBetween(from: readonly SimNode[], to: readonly SimNode[]): PlacesChange<SimNode> | undefined {
    return this.places.changesBetween(from, to);
  }
}

/** The machines deleting or marked, in index order. */
export function deletingPlaces(): PassPlaces<StateNode> {
  return new PassPlaces<StateNode>((sn, env) => ({
    value: deletingOrMarked(sn, env) ? sn : undefined,
    until: Infinity,
  }));
}

/** What isCurrentlyReschedulable reads of a PDB: which pods it selects and whether it blocks them. */
function samePdbRule(a: PodDisruptionBudget, b: PodDisruptionBudget): boolean {
  return (
    a === b ||
    (a.metadata.name === b.metadata.name &&
      a.metadata.namespace === b.metadata.namespace &&
      (a.spec === b.spec || JSON.stringify(a.spec) === JSON.stringify(b.spec)))
  );
}

/**
 * Each machine's currently reschedulable pods, kept per StateNode (its pods are fixed) with the
 * PDB rules they were read against and the span of time over which the answer holds. The PDB
 * rules are numbered: a new index's PDBs keep the number while each is the same rule as the last
 * index's (a PDB's status, which moves with every eviction, is not read).
 */
export class ReschedulablePods {
  private readonly kept = new WeakMap<StateNode, { rules: number; from: number; until: number; pods: Pod[] }>();
  private pdbs: ClusterIndex['pdbsByNamespace'] | undefined;
  private rules = 0;

  private rulesOf(pdbs: ClusterIndex['pdbsByNamespace']): number {
    if (pdbs === this.pdbs) return this.rules;
    const last = this.pdbs;
    this.pdbs = pdbs;
    const same =
      last !== undefined &&
      last.size === pdbs.size &&
      [...pdbs].every(([ns, list]) => {
        const was = last.get(ns);
        return was !== undefined && was.length === list.length && list.every((p, i) => samePdbRule(was[i], p));
      });
    if (!same) this.rules++;
    return this.rules;
  }

  of(index: ClusterIndex, sn: StateNode, now: number): Pod[] {
    const rules = this.rulesOf(index.pdbsByNamespace);
    const k = this.kept.get(sn);
    if (k !== undefined && k.rules === rules && k.from <= now && now < k.until) return k.pods;
    const { pods, until } = currentlyReschedulable(index, sn.pods, now);
    this.kept.set(sn, { rules, from: now, until, pods });
    return pods;
  }
}
