// SPDX-License-Identifier: Apache-2.0
// The node-verdict record of an evaluation made from the last one by a few changed verdicts, or
// as a few Nodes came or went (evaluate-cluster.ts changedOnly). Copying a 5,000-entry record
// costs ~0.6 ms, more than the rest of a one-event tick's evaluation, so the new record is a view:
// a plain record (its base, never changed) with the changed and new entries laid over it, the
// names that went left out and its own key order. It reads like any record — lookups, `in`,
// Object.keys/entries, JSON, spreading — and is read-only, as every evaluation's record is
// treated. The layers do not pile up: a view made from a view shares its base and copies only the
// layers, and once they hold more than COMPACT_AT names a plain record is made instead (the copy
// then pays for that many changes at once). A view keeps its base alive until then; the records
// between are let go.
//
// Records also remember what they were made from and what changed, which lets the verdict digest
// (verdict-digest.ts) follow the change instead of walking every node again: withChanged's the
// changed names (changeOf); withMembers's, whose names differ from the last record's, the names
// that differ (differenceOf), for consumers that count by name, and its names in order with the
// places of those that differ (membersOf), for the digest.
import { ownRecord } from '../cluster/own-keys.js';
import { lowerBound } from '../lower-bound.js';
import type { NodeResult } from './output.js';

type Verdicts = Record<string, NodeResult>;

/** Past this many entries laid over one base (changed, come or gone), a plain copy is made. */
const COMPACT_AT = 256;

/** What a view reads: a plain record, the entries laid over it and the names it no longer holds. */
interface Layers {
  base: Verdicts;
  /** The entries laid over the base, by node name (changed verdicts, and names that came). */
  over: ReadonlyMap<string, NodeResult>;
  /** Names of the base the view does not hold (Nodes that went); none of them is in `over`. */
  gone: ReadonlySet<string>;
  /** The view's names in order; the base's when no Node came or went. */
  keys: readonly string[];
}

/** The layers of every view. */
const layers = new WeakMap<object, Layers>();

/** A view made by withChanged: the record it was made from, and what changed. */
interface View {
  /**
   * The record this one was made from, by its serial, and the names whose verdicts changed from
   * it. Not the record itself: each record holding its predecessor would keep every record of a
   * month-long run alive (nor a WeakRef, whose target lives as long as the job that made it, and a
   * simulation is one job). A reader holding the predecessor asks with it (changeOf).
   */
  from: number;
  changed: readonly string[];
}

const views = new WeakMap<object, View>();
/** Each record's serial, given the first time another is made from it. */
const serials = new WeakMap<Verdicts, number>();
let lastSerial = 0;
const serialOf = (r: Verdicts): number => {
  let n = serials.get(r);
  if (n === undefined) serials.set(r, (n = ++lastSerial));
  return n;
};
/** Each base's keys in order, read once: a view lists them on every Object.keys. */
const baseKeys = new WeakMap<Verdicts, string[]>();

const keysOf = (base: Verdicts): string[] => {
  let keys = baseKeys.get(base);
  if (keys === undefined) baseKeys.set(base, (keys = Object.keys(base)));
  return keys;
};

const has = (base: Verdicts, name: string | symbol): name is string =>
  typeof name === 'string' && Object.prototype.hasOwnProperty.call(base, name);

/** The layers `from` reads: its own when it is a view, else `from` itself with nothing over it. */
const layersOf = (from: Verdicts): Layers =>
  layers.get(from) ?? { base: from, over: new Map(), gone: new Set(), keys: keysOf(from) };

/**
 * A record of `l`: a plain copy when the layers have grown past COMPACT_AT (the copy then pays
 * for that many changes at once), else a read-only view of them.
 */
function recordOf(l: Layers): Verdicts {
  const { base, over, gone, keys } = l;
  if (over.size + gone.size > COMPACT_AT) {
    const out = ownRecord<NodeResult>();
    for (const k of keys) out[k] = over.get(k) ?? base[k];
    return out;
  }
  const inBase = (name: string | symbol): name is string => has(base, name) && !gone.has(name);
  const holds = (name: string | symbol): name is string => typeof name === 'string' && (over.has(name) || inBase(name));
  const read = (name: string | symbol): NodeResult | undefined =>
    typeof name !== 'string' ? undefined : (over.get(name) ?? (inBase(name) ? base[name] : undefined));
  const view = new Proxy(Object.create(null) as Verdicts, {
    get: (_, name) => read(name),
    has: (_, name) => holds(name),
    ownKeys: () => keys as string[],
    getOwnPropertyDescriptor: (_, name) =>
      holds(name) ? { value: read(name), writable: false, enumerable: true, configurable: true } : undefined,
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
  layers.set(view, l);
  return view;
}

/**
 * `from` with the verdicts of `changed` (names `from` holds) replaced, in `from`'s key order;
 * `from` itself is not changed. An empty change gives `from`.
 */
export function withChanged(from: Verdicts, changed: ReadonlyArray<readonly [string, NodeResult]>): Verdicts {
  if (changed.length === 0) return from;
  const l = layersOf(from);
  const over = new Map(l.over);
  for (const [name, result] of changed) over.set(name, result);
  const out = recordOf({ ...l, over });
  views.set(out, { from: serialOf(from), changed: changed.map(([name]) => name) });
  return out;
}

/** A record made by withMembers: the record it was made from, and what differs from it. */
interface Members {
  from: number;
  /** The names whose entries differ: the changed verdicts' (those that came among them), then those that went. */
  changed: readonly string[];
  /** The record's names in its key order, and the place among them of each changed name it holds. */
  names: readonly string[];
  at: ReadonlyMap<string, number>;
}

const differences = new WeakMap<object, Members>();

/**
 * A new record of the node names `names` in order (Nodes came or went since `from`; the record
 * takes the array): the changed verdicts, else `from`'s. `gone` names the nodes of `from` it no
 * longer holds. A view like withChanged's, but not followed by changeOf (its names are not
 * `from`'s); differenceOf and membersOf say what differs.
 */
export function withMembers(
  from: Verdicts,
  names: readonly string[],
  changed: ReadonlyArray<readonly [string, NodeResult]>,
  gone: readonly string[],
): Verdicts {
  const l = layersOf(from);
  const over = new Map(l.over);
  const left = new Set(l.gone);
  for (const name of gone) {
    over.delete(name);
    if (has(l.base, name)) left.add(name);
  }
  const came = new Map(changed);
  for (const [name, result] of came) {
    over.set(name, result);
    left.delete(name);
  }
  // The changed names' places, kept for the verdict digest: it follows the change by them
  // instead of listing the keys and comparing every node's verdict again.
  const at = new Map<string, number>();
  for (const name of came.keys()) {
    const i = placeOf(names, name);
    if (i >= 0) at.set(name, i);
  }
  const out = recordOf({ base: l.base, over, gone: left, keys: names });
  const changedNames = [...new Set([...came.keys(), ...gone])];
  differences.set(out, { from: serialOf(from), changed: changedNames, names, at });
  return out;
}

/**
 * Where `name` is in `names` (-1: not there). The evaluator lists Nodes by name, so a binary
 * search finds it; names in another order are searched one by one.
 */
function placeOf(names: readonly string[], name: string): number {
  const i = lowerBound(names.length, (k) => names[k] < name);
  return names[i] === name ? i : names.indexOf(name);
}

/**
 * For a record withMembers made from `from`: its names in key order, the names that differ from
 * `from` (differenceOf) and the place among its names of each of those it holds. A name both
 * records hold and that is not among those that differ keeps its order relative to every other
 * such name (the evaluator aligns the two indexes' machines by name in order; a machine that moved
 * is re-derived, so named). Undefined for any other pair.
 */
export function membersOf(nodes: Verdicts, from: Verdicts): Pick<Members, 'names' | 'changed' | 'at'> | undefined {
  const m = differences.get(nodes);
  return m !== undefined && serials.get(from) === m.from ? m : undefined;
}

/**
 * The names whose entries differ between `from` and `nodes` when withChanged or withMembers made
 * `nodes` from `from` (changed, came or went; a name may be listed whose entry is equal); without
 * `from`, those from whichever record it was made from. Undefined for any other pair.
 */
export function differenceOf(nodes: Verdicts, from?: Verdicts): readonly string[] | undefined {
  return namesFrom(views.get(nodes) ?? differences.get(nodes), from);
}

/** The names whose verdicts changed when withChanged made `nodes` from `from` (or from any record); else undefined. */
export function changeOf(nodes: Verdicts, from?: Verdicts): readonly string[] | undefined {
  return namesFrom(views.get(nodes), from);
}

function namesFrom(c: { from: number; changed: readonly string[] } | undefined, from: Verdicts | undefined) {
  return c !== undefined && (from === undefined || serials.get(from) === c.from) ? c.changed : undefined;
}
