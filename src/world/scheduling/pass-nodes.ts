// SPDX-License-Identifier: Apache-2.0
// What a simulation pass reads from every machine of an index, kept from the last pass and
// derived again only where it can differ: which machines are deleting or marked, each other
// machine's SimNode (with its consolidateAfter destination state), and each machine's
// currently reschedulable pods. A new index from the live index (src/core/cluster/live-index.ts)
// keeps every unchanged StateNode object, so the machines that changed are those whose objects
// differ from the last index's (compared place by place, or matched by object when machines came
// or went). An answer that moves with time is derived again when `now` reaches the instant it can
// flip (kept in a DueNodes heap, as the verdict reuse does); one that reads PDBs, when the index's
// PDBs are other objects; a change of the marked set re-reads the machines of the providerIDs
// that joined or left it. Anything else (time went back, a pool's consolidateAfter changed)
// derives every machine again, which is what deriving it from scratch does.
import { DueNodes } from '../../core/eval/due-nodes.js';
import type { ClusterIndex, StateNode } from '../../core/cluster/state.js';
import type { Pod, PodDisruptionBudget } from '../../core/cluster/types.js';
import { deletingOrMarked, destinationBlockState, type SimulationEnv } from './cluster-simulation.js';
import { currentlyReschedulable } from './from-state.js';
import type { SimNode } from './simulate.js';

/** The places in `next` whose StateNode is not the one in `prev`; undefined when the machines differ. */
function changedPlaces(prev: readonly StateNode[], next: readonly StateNode[]): number[] | undefined {
  if (prev.length !== next.length) return undefined;
  const out: number[] = [];
  if (prev === next) return out;
  for (let i = 0; i < next.length; i++) {
    if (prev[i] === next[i]) continue;
    if (prev[i].name !== next[i].name) return undefined;
    out.push(i);
  }
  return out;
}

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
 */
export class PassPlaces<T> {
  private stateNodes: readonly StateNode[] = [];
  /** How many of `stateNodes` are Nodes (the rest: NodeClaims no Node joined). */
  private nodeCount = 0;
  private now = -Infinity;
  private marked: ReadonlySet<string> = new Set();
  private values: (T | undefined)[] = [];
  private untils: number[] = [];
  private due = new DueNodes();
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

  /**
   * Machines came, went or moved: carries each kept StateNode's answer to its new place and
   * gives the places of the others. Both lists are in index order (the Nodes by name, then the
   * unjoined NodeClaims by name), so one walk over both finds the kept ones; were a list out of
   * that order, some kept machine would only be derived again.
   */
  private realign(
    prev: readonly StateNode[],
    next: readonly StateNode[],
    nodeCount: number,
    gone: (T | undefined)[],
  ): number[] {
    const before = (a: number, b: number): boolean => {
      const sa = a < this.nodeCount ? 0 : 1;
      const sb = b < nodeCount ? 0 : 1;
      return sa !== sb ? sa < sb : prev[a].name < next[b].name;
    };
    const values = new Array<T | undefined>(next.length);
    const untils = new Array<number>(next.length).fill(Infinity);
    const changed: number[] = [];
    this.due = new DueNodes();
    let j = 0;
    for (let i = 0; i < next.length; i++) {
      while (j < prev.length && prev[j] !== next[i] && before(j, i)) gone.push(this.values[j++]);
      if (j < prev.length && prev[j] === next[i]) {
        values[i] = this.values[j];
        untils[i] = this.untils[j];
        this.due.push(untils[i], i);
        j++;
      } else changed.push(i);
    }
    while (j < prev.length) gone.push(this.values[j++]);
    this.values = values;
    this.untils = untils;
    return changed;
  }

  answers(index: ClusterIndex, env: SimulationEnv): T[] {
    const next = index.stateNodes;
    const prev = this.stateNodes;
    let redo: number[];
    let dirty = false;
    // What left and came, unless every place is derived again (then nothing is logged).
    let gone: (T | undefined)[] | undefined = [];
    const came: T[] = [];
    if (env.now < this.now || !this.unchanged(env)) {
      gone = undefined;
      this.reset();
      this.values = new Array<T | undefined>(next.length);
      this.untils = new Array<number>(next.length).fill(Infinity);
      this.due = new DueNodes();
      redo = next.map((_, i) => i);
      dirty = true;
    } else {
      let changed = changedPlaces(prev, next);
      if (changed === undefined) {
        changed = this.realign(prev, next, index.nodesByName.size, gone);
        dirty = true;
      }
      this.due.takeDue(env.now, changed);
      // Machines whose providerID joined or left the marked set.
      const ids = difference(this.marked, env.marked);
      if (ids.size > 0)
        for (let i = 0; i < next.length; i++) {
          const id = next[i].providerID;
          if (id !== undefined && ids.has(id)) changed.push(i);
        }
      redo = changed;
    }
    this.stateNodes = next;
    this.nodeCount = index.nodesByName.size;
    this.now = env.now;
    this.marked = new Set(env.marked); // a copy: the caller's set may change later
    for (const i of redo) {
      const { value, until } = this.derive(next[i], env);
      if (value !== this.values[i]) {
        dirty = true;
        gone?.push(this.values[i]);
        if (value !== undefined) came.push(value);
      }
      this.values[i] = value;
      this.untils[i] = until;
      this.due.push(until, i);
    }
    if (dirty) {
      this.out = this.values.filter((v): v is T => v !== undefined);
      this.serials.set(this.out, ++this.serial);
      if (gone === undefined) this.log = [];
      else {
        this.log.push({ serial: this.serial, gone: gone.filter((v): v is T => v !== undefined), came });
        if (this.log.length > CHANGE_LOG) this.log.shift();
      }
    } else if (this.serial === 0) this.serials.set(this.out, ++this.serial);
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
