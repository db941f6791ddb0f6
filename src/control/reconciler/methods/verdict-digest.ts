// SPDX-License-Identifier: Apache-2.0
// The views of one evaluation's node verdicts that the disruption loop reads every tick —
// candidates per reason, the blocked nodes, a fingerprint — built once per evaluation. An
// evaluation reused across quiet ticks (src/core/eval/evaluation-span.ts) keeps its `nodes` record,
// so these are built once for as long as nothing changes, not once per method per tick; a record
// made from the last one by a few changed verdicts (src/core/eval/verdict-record.ts) gets its
// digest from the last one's, by those verdicts alone.
import type { Reason } from '../../../../rules/model.js';
import type { EvalOutput, NodeResult } from '../../../core/eval/output.js';
import { changeOf } from '../../../core/eval/verdict-record.js';

export interface VerdictDigest {
  /** Node names per reason they are a candidate for, in evaluation order. */
  byReason: ReadonlyMap<Reason, readonly string[]>;
  /** Nodes with at least one block, in evaluation order. */
  blocked: ReadonlyArray<readonly [string, NodeResult]>;
  /**
   * Every node's reasons and block codes and every pool's allowances, as one string (KARPENTER.md#consolidated-cache's
   * "state changed").
   */
  fingerprint(): string;
  /**
   * When the evaluation's record was made from another by a few changed verdicts (verdict-record.ts)
   * and this digest from that record's: its digest and the names whose verdicts changed.
   */
  change?: { previous: VerdictDigest; changed: readonly string[] };
}

type Verdicts = EvalOutput['nodes'];
const digests = new WeakMap<Verdicts, VerdictDigest>();
/** Each node's place in evaluation order, per record and shared by the records made from it (same names). */
const orders = new WeakMap<VerdictDigest, Map<string, number>>();

export function digestOf(evaluation: EvalOutput): VerdictDigest {
  let d = digests.get(evaluation.nodes);
  if (d === undefined) {
    const change = changeOf(evaluation.nodes);
    const previous = change && digests.get(change.from);
    d = change && previous ? follow(previous, change.from, evaluation, change.changed) : build(evaluation);
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
    for (const name of Object.keys(nodes)) order.set(name, order.size);
    orders.set(d, order);
  }
  return order;
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

/**
 * The digest of a record made from `from` (digested as `previous`) by the verdicts of `changed`:
 * the views copied and each changed name taken out of or put into its place, in evaluation order,
 * so that it equals build() over the new record (test/eval/fact-combinations.test.ts compares them).
 */
function follow(
  previous: VerdictDigest,
  from: Verdicts,
  evaluation: EvalOutput,
  changed: readonly string[],
): VerdictDigest {
  const nodes = evaluation.nodes;
  const order = orderOf(previous, from);
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
  for (const name of changed) {
    const was = from[name];
    const now = nodes[name];
    const place = order.get(name)!;
    for (const r of new Set([...was.reasons, ...now.reasons])) {
      const before = was.reasons.includes(r);
      if (before === now.reasons.includes(r)) continue;
      let names = byReason.get(r) as string[] | undefined;
      // Copied once per follow; made anew when an earlier name of this change emptied it.
      if (!copied.has(r) || names === undefined) {
        names = names ? names.slice() : [];
        copied.add(r);
        byReason.set(r, names);
      }
      const at = placeIn(names!, self, order, place);
      if (before) names!.splice(at, 1);
      else names!.splice(at, 0, name);
      if (names!.length === 0) byReason.delete(r);
    }
    const at = placeIn(blocked, first, order, place);
    const there = blocked[at]?.[0] === name;
    if (now.blocked.length > 0) writable().splice(at, there ? 1 : 0, [name, now]);
    else if (there) writable().splice(at, 1);
  }
  const d = withFingerprint(evaluation, { byReason, blocked, change: { previous, changed } });
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
