// SPDX-License-Identifier: Apache-2.0
// The node-verdict record of an evaluation made from the last one by a few changed verdicts
// (evaluate-cluster.ts changedOnly). Copying a 5,000-entry record costs ~1 ms, more than the rest
// of a one-event tick's evaluation, so the new record is a view: the record it was made from
// (its base, never changed) with the changed entries laid over it. It reads like any record —
// lookups, Object.keys/entries, JSON, spreading — and is read-only, as every evaluation's record
// is treated. The layers do not pile up: a view made from a view shares its base and copies only
// the overlay, and once the overlay grows past COMPACT_AT entries a plain record is made instead
// (the copy then pays for that many events at once). Views also remember what they were made
// from and what changed, which lets the verdict digest (verdict-digest.ts) follow the change
// instead of walking every node again. When Nodes came or went the names differ, and the new
// record is a plain one (a view's lookups would slow every walk over it); it remembers the record
// it was made from and the names that differ (differenceOf), for consumers that count by name,
// and its names in order with the places of those that differ (membersOf), for the digest.
import { ownRecord } from '../cluster/own-keys.js';
import type { NodeResult } from './output.js';

type Verdicts = Record<string, NodeResult>;

/** Past this many changed entries over one base, a plain copy is made. */
const COMPACT_AT = 256;

interface View {
  base: Verdicts;
  /** The entries laid over the base, by node name (each name is one of the base's). */
  over: ReadonlyMap<string, NodeResult>;
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

/**
 * `from` with the verdicts of `changed` (names `from` holds) replaced, in `from`'s key order;
 * `from` itself is not changed. An empty change gives `from`.
 */
export function withChanged(from: Verdicts, changed: ReadonlyArray<readonly [string, NodeResult]>): Verdicts {
  if (changed.length === 0) return from;
  const v = views.get(from);
  const base = v?.base ?? from;
  const over = new Map(v?.over);
  for (const [name, result] of changed) over.set(name, result);
  const names = changed.map(([name]) => name);
  if (over.size > COMPACT_AT) {
    const out = ownRecord<NodeResult>();
    for (const k of keysOf(base)) out[k] = over.get(k) ?? base[k];
    views.set(out, { base: out, over: new Map(), from: serialOf(from), changed: names });
    return out;
  }
  const read = (name: string | symbol): NodeResult | undefined =>
    has(base, name) ? (over.get(name) ?? base[name]) : undefined;
  const view = new Proxy(Object.create(null) as Verdicts, {
    get: (_, name) => read(name),
    has: (_, name) => has(base, name),
    ownKeys: () => keysOf(base),
    getOwnPropertyDescriptor: (_, name) =>
      has(base, name) ? { value: read(name), writable: false, enumerable: true, configurable: true } : undefined,
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
  views.set(view, { base, over, from: serialOf(from), changed: names });
  return view;
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
 * A new record of the node names `names` in order (Nodes came or went since `from`): the changed
 * verdicts, else `from`'s. `gone` names the nodes of `from` it no longer holds. Not a view and not
 * followed by changeOf (its names are not `from`'s); differenceOf and membersOf say what differs.
 */
export function withMembers(
  from: Verdicts,
  names: Iterable<string>,
  changed: ReadonlyArray<readonly [string, NodeResult]>,
  gone: readonly string[],
): Verdicts {
  const v = views.get(from);
  const over = new Map(changed);
  // Reading a view's layers directly: a lookup through the proxy per node shows at 5,000 nodes.
  const base = v?.base ?? from;
  const under = v?.over;
  const out = ownRecord<NodeResult>();
  // The names in order and the changed ones' places, kept for the verdict digest: it follows the
  // change by them instead of listing the keys and comparing every node's verdict again.
  const keys: string[] = [];
  const at = new Map<string, number>();
  for (const name of names) {
    const result = over.get(name);
    if (result !== undefined) at.set(name, keys.length);
    keys.push(name);
    out[name] = result ?? under?.get(name) ?? base[name];
  }
  const changedNames = [...new Set([...over.keys(), ...gone])];
  differences.set(out, { from: serialOf(from), changed: changedNames, names: keys, at });
  return out;
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
