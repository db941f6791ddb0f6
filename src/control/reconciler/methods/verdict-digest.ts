// SPDX-License-Identifier: Apache-2.0
// The views of one evaluation's node verdicts that the disruption loop reads every tick —
// candidates per reason, the blocked nodes, a fingerprint — built once per evaluation. An
// evaluation reused across quiet ticks (src/core/eval/evaluation-span.ts) keeps its `nodes` record,
// so these are built once for as long as nothing changes, not once per method per tick; a record
// made from the last one by a few changed verdicts (src/core/eval/verdict-record.ts) gets its
// digest from the last one's, by those verdicts alone; one made from the last one as Nodes came or
// went (withMembers) by the names it says differ, placed by its own key list. A record the
// evaluator made whole (a busy tick: the in-flight state moved) still holds the last record's verdict
// object for every node whose verdict it kept, so its digest is followed from the last one's
// through the verdicts that are other objects, found by one pass of identity comparisons.
import type { Reason } from '../../../../rules/model.js';
import type { EvalOutput, NodeResult } from '../../../core/eval/output.js';
import { changeOf, membersOf } from '../../../core/eval/verdict-record.js';

export interface VerdictDigest {
  /** Node names per reason they are a candidate for, in evaluation order. */
  byReason: ReadonlyMap<Reason, readonly string[]>;
  /** Nodes with at least one block, in evaluation order. */
  blocked: ReadonlyArray<readonly [string, NodeResult]>;
  /**
   * Every node's reasons and block codes and every pool's allowances, as one string (KARPENTER.md#consolidated-cache's
   * "state changed"). Made when first asked for: at 5,000 nodes it is a quarter-megabyte string.
   */
  fingerprint(): string;
  /**
   * When this digest was followed from another one's through the verdicts that differ: that
   * digest, and the names whose verdicts changed, came or went. `verdictsOnly`: the change was
   * found by comparing the two records' verdict objects (followingFrom), so a node whose Node or
   * NodeClaim changed under the same verdict is not named; otherwise the record was made from the
   * last one by the evaluator (verdict-record.ts), which names such nodes too.
   */
  change?: { previous: VerdictDigest; changed: readonly string[]; verdictsOnly?: true };
}

type Verdicts = EvalOutput['nodes'];
const digests = new WeakMap<Verdicts, VerdictDigest>();
/**
 * Each node's place in evaluation order, per digest and shared by the digests followed from it:
 * a name that goes keeps its entry (the others keep their order), a name that comes gets a place
 * between its neighbours'. Only names of the digest's own record are looked up in it.
 */
const orders = new WeakMap<VerdictDigest, Map<string, number>>();
/** Each digest's node names in evaluation order, when known (the record's keys). */
const namesOf = new WeakMap<VerdictDigest, readonly string[]>();
/** Each digest's verdicts in the order of its names, when known: the next record is compared with these. */
const verdictsOf = new WeakMap<VerdictDigest, readonly NodeResult[]>();

/** More changed verdicts than this between two records: the digest is built afresh. */
const FOLLOW_LIMIT = 256;

/**
 * The digest of the evaluation's verdicts: kept per record; else, given `since` (an earlier
 * evaluation whose digest is kept), followed from since's digest — by the names that changed when
 * this record was made from since's (verdict-record.ts), or else through the verdicts that are
 * other objects (the evaluator keeps an unchanged node's verdict object across whole passes:
 * node-result-cache.ts); else built.
 */
export function digestOf(evaluation: EvalOutput, since?: EvalOutput): VerdictDigest {
  let d = digests.get(evaluation.nodes);
  if (d === undefined) {
    const from = since?.nodes;
    const changed = from && changeOf(evaluation.nodes, from);
    const previous = changed && digests.get(from!);
    if (changed && previous) d = follow(previous, from!, evaluation, edited(from!, evaluation.nodes, changed));
    else {
      const last = since && since.nodes !== evaluation.nodes ? digests.get(since.nodes) : undefined;
      d =
        (last && (followingMembers(last, since!.nodes, evaluation) ?? followingFrom(last, since!.nodes, evaluation))) ??
        build(evaluation);
    }
    digests.set(evaluation.nodes, d);
  }
  return d;
}

function build(evaluation: EvalOutput): VerdictDigest {
  const byReason = new Map<Reason, string[]>();
  const blocked: [string, NodeResult][] = [];
  for (const [name, n] of Object.entries(evaluation.nodes)) {
    for (const r of n.reasons) {
      const names = byReason.get(r);
      if (names) names.push(name);
      else byReason.set(r, [name]);
    }
    if (n.blocked.length > 0) blocked.push([name, n]);
  }
  return withFingerprint(evaluation, { byReason, blocked });
}

function withFingerprint(evaluation: EvalOutput, views: Omit<VerdictDigest, 'fingerprint'>): VerdictDigest {
  let fp: string | undefined;
  // Pool allowances are part of it, and a reused evaluation keeps its pools too.
  return { ...views, fingerprint: () => (fp ??= fingerprintOf(evaluation)) };
}

/** Node names in evaluation order with their places, made once for a record and the records made from it. */
function orderOf(d: VerdictDigest, nodes: Verdicts): Map<string, number> {
  let order = orders.get(d);
  if (order === undefined) {
    order = new Map();
    for (const name of names(d, nodes)) order.set(name, order.size);
    orders.set(d, order);
  }
  return order;
}

/** The digest's node names in evaluation order (its record's keys, read once). */
function names(d: VerdictDigest, nodes: Verdicts): readonly string[] {
  let out = namesOf.get(d);
  if (out === undefined) namesOf.set(d, (out = Object.keys(nodes)));
  return out;
}

/**
 * `names` in evaluation order of the digest's record (names the record does not hold last), for
 * a caller that must act on them in the order a walk over every node would.
 */
export function inEvaluationOrder(d: VerdictDigest, nodes: Verdicts, names: Iterable<string>): string[] {
  const order = orderOf(d, nodes);
  // Each name's place looked up once (a record made from the last one answers through a proxy).
  const placed = [...names].map((name) => ({
    name,
    place: Object.prototype.hasOwnProperty.call(nodes, name) ? (order.get(name) ?? Number.MAX_VALUE) : Number.MAX_VALUE,
  }));
  placed.sort((a, b) => (a.place < b.place ? -1 : a.place > b.place ? 1 : 0));
  return placed.map((x) => x.name);
}

/** The first place in `xs` (in evaluation order) whose name is not before `place`. */
function placeIn<T>(xs: readonly T[], nameOf: (x: T) => string, order: Map<string, number>, place: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (order.get(nameOf(xs[mid]))! < place) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One node's verdict before and after a change; undefined: the node is not in that record. */
interface Edit {
  name: string;
  was: NodeResult | undefined;
  now: NodeResult | undefined;
}

/** The edits of a record made from `from` by the verdicts of `changed` (same names). */
const edited = (from: Verdicts, nodes: Verdicts, changed: readonly string[]): Edit[] =>
  changed.map((name) => ({ name, was: from[name], now: nodes[name] }));

/**
 * The digest of `evaluation` followed from `previous` (the digest of `from`) by comparing the two
 * records' verdict objects in evaluation order: undefined when the names are not in the same
 * relative order, too many verdicts differ, or a name that comes was seen before (its kept place
 * could be stale) — then the caller builds it.
 */
function followingFrom(previous: VerdictDigest, from: Verdicts, evaluation: EvalOutput): VerdictDigest | undefined {
  const nodes = evaluation.nodes;
  const before = names(previous, from);
  let was = verdictsOf.get(previous);
  if (was === undefined) verdictsOf.set(previous, (was = before.map((name) => from[name])));
  const after = Object.keys(nodes);
  // One lookup per node: the verdicts of `after`, kept for the next record's comparison.
  const now: NodeResult[] = new Array<NodeResult>(after.length);
  const order = orderOf(previous, from);
  // Past this many names ever placed, the kept places are dropped and the digest is built again.
  if (order.size > 2 * after.length + FOLLOW_LIMIT) return undefined;
  const edits: Edit[] = [];
  const came: Came = [];
  // Every edited name in the order the walk meets them: evaluation order, a name that went at its old place.
  const changed: string[] = [];
  let i = 0;
  let j = 0;
  while (i < after.length || j < before.length) {
    const a = after[i];
    const b = before[j];
    if (a !== undefined && a === b) {
      const v = (now[i] = nodes[a]);
      if (v !== was[j]) {
        edits.push({ name: a, was: was[j], now: v });
        changed.push(a);
      }
      i++;
      j++;
    } else if (b !== undefined && !Object.prototype.hasOwnProperty.call(nodes, b)) {
      edits.push({ name: b, was: was[j], now: undefined });
      changed.push(b);
      j++;
    } else if (a !== undefined && !Object.prototype.hasOwnProperty.call(from, a) && !order.has(a)) {
      came.push({ name: a, now: (now[i] = nodes[a]), at: i });
      changed.push(a);
      i++;
    } else return undefined;
    if (changed.length > FOLLOW_LIMIT) return undefined;
  }
  const d = withCame(previous, from, evaluation, { edits, came, order, changed, after });
  if (d === undefined) return undefined;
  verdictsOf.set(d, now);
  if (d.change) d.change.verdictsOnly = true;
  return d;
}

/**
 * The digest of a record the evaluator made from `from` as Nodes came or went (verdict-record.ts
 * withMembers), followed from `previous` by the names it says differ, without a walk over every
 * node: undefined when it was not made so from `from`, too many names differ, a name that comes
 * was seen before, a changed name both hold is not between its neighbours' places (the others
 * keep their order: membersOf), or a run of names that comes finds no room — then followingFrom.
 */
function followingMembers(previous: VerdictDigest, from: Verdicts, evaluation: EvalOutput): VerdictDigest | undefined {
  const nodes = evaluation.nodes;
  const m = membersOf(nodes, from);
  if (m === undefined || m.changed.length > FOLLOW_LIMIT) return undefined;
  const after = m.names;
  const order = orderOf(previous, from);
  if (order.size > 2 * after.length + FOLLOW_LIMIT) return undefined;
  const edits: Edit[] = [];
  const came: Came = [];
  const kept: { name: string; at: number }[] = [];
  const gone: string[] = [];
  for (const name of m.changed) {
    const at = m.at.get(name);
    const was = Object.prototype.hasOwnProperty.call(from, name) ? from[name] : undefined;
    const now = at === undefined ? undefined : nodes[name];
    if (was === undefined) {
      if (now === undefined) continue;
      if (order.has(name)) return undefined;
      came.push({ name, now, at: at! });
    } else {
      edits.push({ name, was, now });
      if (now === undefined) gone.push(name);
      else kept.push({ name, at: at! });
    }
  }
  // Each changed name both hold must lie between the nearest names on either side that both hold.
  const cameAt = new Set(came.map((c) => c.at));
  for (const { name, at } of kept) {
    const place = order.get(name)!;
    let l = at - 1;
    while (l >= 0 && cameAt.has(l)) l--;
    let r = at + 1;
    while (r < after.length && cameAt.has(r)) r++;
    if (l >= 0 && !(order.get(after[l])! < place)) return undefined;
    if (r < after.length && !(order.get(after[r])! > place)) return undefined;
  }
  came.sort((a, b) => a.at - b.at);
  // The change names what is in the new record in its order (the order a walk over every node acts in), then what went.
  const present = [...kept, ...came].sort((a, b) => a.at - b.at).map((x) => x.name);
  return withCame(previous, from, evaluation, { edits, came, order, changed: [...present, ...gone], after });
}

/** Names that come, found by one of the two walks above, in the order of the new record's names. */
type Came = { name: string; now: NodeResult; at: number }[];

/**
 * The tail both walks share: the names that come are given places, their edits follow the others
 * (a new place may equal one that is left), the digest is followed by them all and keeps the new
 * record's names. Undefined when a run of names that come finds no room.
 */
function withCame(
  previous: VerdictDigest,
  from: Verdicts,
  evaluation: EvalOutput,
  walk: { edits: Edit[]; came: Came; order: Map<string, number>; changed: readonly string[]; after: readonly string[] },
): VerdictDigest | undefined {
  if (!placeCame(walk.came, walk.after, walk.order)) return undefined;
  for (const c of walk.came) walk.edits.push({ name: c.name, was: undefined, now: c.now });
  const d = follow(previous, from, evaluation, walk.edits, walk.order, walk.changed);
  namesOf.set(d, walk.after);
  return d;
}

/**
 * Gives each name that comes a place between those of its neighbours in `after` that were there
 * before (whose places are kept), spread evenly over the gap; false when the gap is too narrow.
 */
function placeCame(
  came: readonly { name: string; at: number }[],
  after: readonly string[],
  order: Map<string, number>,
): boolean {
  let k = 0;
  while (k < came.length) {
    // A run of names that came, at consecutive positions of `after`.
    let end = k + 1;
    while (end < came.length && came[end].at === came[end - 1].at + 1) end++;
    const run = end - k;
    const left = came[k].at > 0 ? order.get(after[came[k].at - 1]) : undefined;
    const right = came[end - 1].at + 1 < after.length ? order.get(after[came[end - 1].at + 1]) : undefined;
    // At either end of the record, the run gets whole places past its one neighbour.
    const low = left ?? (right !== undefined ? right - run - 1 : 0);
    const high = right ?? low + run + 1;
    let last = low;
    for (let m = k; m < end; m++) {
      const place = low + ((high - low) * (m - k + 1)) / (run + 1);
      if (!(place > last && place < high)) return false;
      order.set(came[m].name, place);
      last = place;
    }
    k = end;
  }
  return true;
}

/**
 * The digest of a record made from `from` (digested as `previous`) by `edits` (names that go and
 * verdicts that change first, then names that come; every name has a place in `order`): the views
 * copied and each edited name taken out of or put into its place, in evaluation order, so that it
 * equals build() over the new record (test/reconciler/verdict-digest.test.ts and
 * test/eval/fact-combinations.test.ts compare them).
 */
function follow(
  previous: VerdictDigest,
  from: Verdicts,
  evaluation: EvalOutput,
  edits: readonly Edit[],
  order: Map<string, number> = orderOf(previous, from),
  changed: readonly string[] = edits.map((e) => e.name),
): VerdictDigest {
  const byReason = new Map(previous.byReason as Map<Reason, readonly string[]>);
  const copied = new Set<Reason>();
  // Copied only when a blocked node changed: an unchanged list keeps its identity, which the
  // per-tick event batches compare (src/core/observe/repeated-batch.ts).
  let blocked = previous.blocked as (readonly [string, NodeResult])[];
  let blockedCopied = false;
  const writable = () => {
    if (!blockedCopied) blocked = blocked.slice();
    blockedCopied = true;
    return blocked;
  };
  const first = ([name]: readonly [string, NodeResult]) => name;
  const self = (name: string) => name;
  for (const { name, was, now } of edits) {
    const place = order.get(name)!;
    const wasReasons = was?.reasons ?? [];
    const nowReasons = now?.reasons ?? [];
    for (const r of new Set([...wasReasons, ...nowReasons])) {
      const before = wasReasons.includes(r);
      if (before === nowReasons.includes(r)) continue;
      let names = byReason.get(r) as string[] | undefined;
      // Copied once per follow; made anew when an earlier name of this change emptied it.
      if (!copied.has(r) || names === undefined) {
        names = names ? names.slice() : [];
        copied.add(r);
        byReason.set(r, names);
      }
      const at = placeIn(names, self, order, place);
      if (before) names.splice(at, 1);
      else names.splice(at, 0, name);
      if (names.length === 0) byReason.delete(r);
    }
    const at = placeIn(blocked, first, order, place);
    const there = blocked[at]?.[0] === name;
    if (now !== undefined && now.blocked.length > 0) writable().splice(at, there ? 1 : 0, [name, now]);
    else if (there) writable().splice(at, 1);
  }
  const d = withFingerprint(evaluation, { byReason, blocked, change: { previous, changed } });
  // Only the newest digest's change is read (blocked-events.ts): the one it was followed from lets
  // go of its own, so that a month of ticks followed one from another is not one chain in memory.
  previous.change = undefined;
  orders.set(d, order);
  return d;
}

function fingerprintOf(evaluation: EvalOutput): string {
  let fp = '';
  for (const [name, n] of Object.entries(evaluation.nodes))
    fp += `${name}:${n.reasons.join(',')}:${n.blocked.map((b) => b.code).join(',')};`;
  for (const [name, p] of Object.entries(evaluation.nodePools)) fp += `${name}=${JSON.stringify(p.allowed)};`;
  for (const [id, sc] of Object.entries(evaluation.scopes ?? {})) fp += `${id}=${JSON.stringify(sc.allowed)};`;
  return fp;
}
