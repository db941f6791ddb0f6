// SPDX-License-Identifier: Apache-2.0
// Disruption candidates as the methods see them: the evaluator's verdict (reasons come from
// the rule graph — nothing here decides candidacy) joined with the node's pods, price and
// Karpenter's ordering costs (KARPENTER.md#cost-and-order).
import { countOf, type Reason } from '../../../../rules/model.js';
import type { InstanceType } from '../../../world/cloud/provider.js';
import { stateNodeChanges, type StateNodeChanges } from '../../../core/cluster/live-index.js';
import { lowerBound } from '../../../core/lower-bound.js';
import { isReschedulable, type ClusterIndex, type StateNode } from '../../../core/cluster/state.js';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_ZONE, type Pod } from '../../../core/cluster/types.js';
import type { EvalOutput } from '../../../core/eval/output.js';
import { evictionCost } from '../../../core/facts/node-facts.js';
import type { CandidateRef } from './command.js';
import { digestOf, type VerdictDigest } from './verdict-digest.js';
import { sameItems } from '../../../world/scheduling/same-items.js';

export interface Candidate {
  sn: StateNode;
  ref: CandidateRef;
  reschedulable: Pod[];
  /** 1 + Σ max(0, eviction cost) over reschedulable pods (Karpenter's RescheduleDisruptionCost). */
  disruptionCost: number;
}

/** The offering price of a node from its labels (instance type, zone, capacity type); 0 if unknown. */
export function nodePrice(labels: Readonly<Record<string, string>>, types: ReadonlyMap<string, InstanceType>): number {
  const it = types.get(labels[LABEL_INSTANCE_TYPE] ?? '');
  const o = it?.offerings.find((x) => x.zone === labels[LABEL_ZONE] && x.capacityType === labels[LABEL_CAPACITY_TYPE]);
  return o && Number.isFinite(o.price) ? o.price : 0;
}

/**
 * A machine's reschedulable pods and their disruption cost, kept while its pods are the same
 * objects (listed objects are replaced, never changed): the methods, validation and the
 * consolidated-state check build the same candidates many times a tick and over many ticks.
 */
const podsOf = new WeakMap<object, { pods: readonly Pod[]; reschedulable: Pod[]; disruptionCost: number }>();

function reschedulablePods(sn: StateNode): { reschedulable: Pod[]; disruptionCost: number } {
  const key = sn.node ?? sn.nodeClaim;
  const hit = key && podsOf.get(key);
  if (hit && sameItems(hit.pods, sn.pods)) return hit;
  const reschedulable = sn.pods.filter(isReschedulable);
  const entry = {
    pods: sn.pods,
    reschedulable,
    disruptionCost: 1 + reschedulable.reduce((s, p) => s + Math.max(0, evictionCost(p)), 0),
  };
  if (key) podsOf.set(key, entry);
  return entry;
}

export function toCandidate(sn: StateNode, nodePool: string, types: ReadonlyMap<string, InstanceType>): Candidate {
  const labels = sn.node?.metadata.labels ?? {};
  const { reschedulable, disruptionCost } = reschedulablePods(sn);
  return {
    sn,
    ref: {
      node: sn.name,
      nodeClaim: sn.nodeClaim?.metadata.name ?? '',
      providerID: sn.providerID ?? '',
      nodePool,
      price: nodePrice(labels, types),
      capacityType: labels[LABEL_CAPACITY_TYPE] ?? '',
      pods: reschedulable.length,
    },
    reschedulable,
    disruptionCost,
  };
}

/** Whether the evaluated node is a candidate the methods can act on (a managed node with a machine). */
const actionable = (sn: StateNode | undefined): sn is StateNode =>
  sn?.nodeClaim !== undefined && sn.providerID !== undefined;

/**
 * Each machine's last candidate, kept while its StateNode, pool and instance types are the same
 * objects (a StateNode is replaced when anything of its machine changes): the methods, validation
 * and the consolidated-state check ask for every candidate of a reason several times a tick, and
 * with thousands of candidates building them again showed as the loop's largest cost.
 */
const kept = new WeakMap<StateNode, { nodePool: string; types: object; candidate: Candidate }>();

function keptCandidate(sn: StateNode, nodePool: string, types: ReadonlyMap<string, InstanceType>): Candidate {
  const k = kept.get(sn);
  if (k !== undefined && k.nodePool === nodePool && k.types === types) return k.candidate;
  const candidate = toCandidate(sn, nodePool, types);
  kept.set(sn, { nodePool, types, candidate });
  return candidate;
}

/**
 * What each digest's candidates per reason come to, for the one index (and catalog) they were
 * found on: how many (the eligible-nodes gauge, set for every method every loop), the list and
 * the list most savings first. A quiet tick keeps all three (the same evaluation record, the same
 * index); the methods, validation and the consolidated-state check each ask for a reason's
 * candidates in a loop, and at 5,000 nodes every list was 5,000 lookups (and a sort).
 */
interface DigestMemo {
  index: ClusterIndex;
  counts: Map<Reason, number>;
  /** The catalog the lists were built with (the runtime keeps one for its life). */
  types: ReadonlyMap<string, InstanceType> | undefined;
  listed: Map<Reason, readonly Candidate[]>;
  bySavings: Map<Reason, readonly Candidate[]>;
  /**
   * The memo these lists may be followed from (the last digest's or index's), and the node names
   * whose verdict or machine changed since; undefined when not known. Links reach two memos back
   * (FOLLOW_DEPTH), so memos do not chain back over a run.
   */
  since?: { memo: DigestMemo; changed: ReadonlySet<string> };
}

/**
 * How many memos back a list is followed from: two, as a validation tick asks for a reason's
 * list but not its savings order, which the tick before it built.
 */
const FOLLOW_DEPTH = 2;

const memos = new WeakMap<VerdictDigest, DigestMemo>();

function memoOf(digest: VerdictDigest, index: ClusterIndex): DigestMemo {
  let memo = memos.get(digest);
  if (memo === undefined || memo.index !== index) {
    // The same verdicts on a newer index (validation after a command started), or the verdicts
    // followed from the last digest's (verdict-digest.ts): the last lists change only where a
    // verdict or a machine did.
    const last = memo ?? (digest.change && memos.get(digest.change.previous));
    const verdicts = memo ? [] : digest.change?.changed;
    const machines = last && stateNodeChanges(last.index, index);
    const since = last && verdicts && machines ? { memo: last, changed: changedNames(verdicts, machines) } : undefined;
    memo = { index, counts: new Map(), types: undefined, listed: new Map(), bySavings: new Map() };
    if (since) memo.since = since;
    // Links FOLLOW_DEPTH back at most, from the new memo.
    let end = memo;
    for (let d = 0; d < FOLLOW_DEPTH && end.since; d++) end = end.since.memo;
    end.since = undefined;
    memos.set(digest, memo);
  }
  return memo;
}

function changedNames(verdicts: readonly string[], machines: StateNodeChanges): Set<string> {
  const out = new Set(verdicts);
  for (const sn of machines.gone) out.add(sn.name);
  for (const sn of machines.came) out.add(sn.name);
  return out;
}

/** How many candidates candidatesFor would return, without building them. */
export function countCandidates(reason: Reason, out: EvalOutput, index: ClusterIndex): number {
  const digest = digestOf(out);
  const memo = memoOf(digest, index);
  let n = memo.counts.get(reason) ?? memo.listed.get(reason)?.length;
  if (n !== undefined) return n;
  // A list that can be followed costs the changed names only, and is then kept.
  const types = memo.since?.memo.types;
  if (types !== undefined && followedFrom(memo, types, (m) => m.listed.get(reason)))
    return listed(reason, out, index, types).list.length;
  n = 0;
  for (const name of digest.byReason.get(reason) ?? []) if (actionable(index.nodesByName.get(name))) n++;
  memo.counts.set(reason, n);
  return n;
}

/** A reason's candidates as listed, kept (callers copy). */
function listed(
  reason: Reason,
  out: EvalOutput,
  index: ClusterIndex,
  types: ReadonlyMap<string, InstanceType>,
): { memo: DigestMemo; list: readonly Candidate[] } {
  const digest = digestOf(out);
  const memo = memoOf(digest, index);
  if (memo.types !== types) Object.assign(memo, { types, listed: new Map(), bySavings: new Map() });
  let list = memo.listed.get(reason);
  if (list === undefined) {
    const names = digest.byReason.get(reason) ?? [];
    const candidate = (name: string): Candidate | undefined => {
      const sn = index.nodesByName.get(name);
      return actionable(sn) ? keptCandidate(sn, out.nodes[name].nodePool, types) : undefined;
    };
    // A changed name is among the reason's names when its verdict gives the reason (the digest's byReason).
    const changedCandidate = (name: string): Candidate | undefined =>
      out.nodes[name]?.reasons.includes(reason) ? candidate(name) : undefined;
    list = followed(memo, reason, changedCandidate) ?? built(names, candidate);
    memo.listed.set(reason, list);
  }
  return { memo, list };
}

/**
 * Lists in node-name order, which a follow can splice. The evaluator lists Nodes by name, so every
 * list is; built() checks its names once, and a follow keeps the order.
 */
const byName = new WeakSet<readonly Candidate[]>();

function built(names: readonly string[], candidate: (name: string) => Candidate | undefined): Candidate[] {
  const out: Candidate[] = [];
  let ascending = true;
  for (let i = 0; i < names.length; i++) {
    if (i > 0 && !(names[i - 1] < names[i])) ascending = false;
    const c = candidate(names[i]);
    if (c) out.push(c);
  }
  if (ascending) byName.add(out);
  return out;
}

/**
 * The newest memo `memo` follows (FOLLOW_DEPTH back at most) that holds the list `pick` takes,
 * with the names changed since; undefined when none does, or one was built with another catalog.
 */
function followedFrom(
  memo: DigestMemo,
  types: ReadonlyMap<string, InstanceType> | undefined,
  pick: (m: DigestMemo) => readonly Candidate[] | undefined,
): { list: readonly Candidate[]; changed: ReadonlySet<string> } | undefined {
  let changed: ReadonlySet<string> | undefined;
  for (let s = memo.since; s !== undefined; s = s.memo.since) {
    if (s.memo.types !== types) return undefined;
    changed = changed === undefined ? s.changed : new Set([...changed, ...s.changed]);
    const list = pick(s.memo);
    if (list !== undefined) return { list, changed };
  }
  return undefined;
}

/**
 * The list followed from an earlier one in name order (followedFrom): a name whose verdict and
 * machine are the same has the same candidate, or none, so only the changed names are looked up,
 * each put in, replaced or taken out at its place. Undefined when there is no such list.
 */
function followed(
  memo: DigestMemo,
  reason: Reason,
  candidate: (name: string) => Candidate | undefined,
): Candidate[] | undefined {
  const from = followedFrom(memo, memo.types, (m) => m.listed.get(reason));
  if (from === undefined || !byName.has(from.list)) return undefined;
  const out = from.list.slice();
  for (const name of from.changed) {
    const c = candidate(name);
    const i = lowerBound(out.length, (k) => out[k].ref.node < name);
    const had = i < out.length && out[i].ref.node === name;
    if (c && had) out[i] = c;
    else if (c) out.splice(i, 0, c);
    else if (had) out.splice(i, 1);
  }
  byName.add(out);
  return out;
}

/** Candidates for one reason, straight from the evaluation; a new array the caller may change. */
export function candidatesFor(
  reason: Reason,
  out: EvalOutput,
  index: ClusterIndex,
  types: ReadonlyMap<string, InstanceType>,
): Candidate[] {
  return listed(reason, out, index, types).list.slice();
}

/** The candidates among `names` for one reason, by name (a name that is not one is left out). */
export function candidatesNamed(
  reason: Reason,
  out: EvalOutput,
  index: ClusterIndex,
  types: ReadonlyMap<string, InstanceType>,
  names: readonly string[],
): Map<string, Candidate> {
  const { list } = listed(reason, out, index, types);
  const found = new Map<string, Candidate>();
  if (byName.has(list))
    for (const name of names) {
      const i = lowerBound(list.length, (k) => list[k].ref.node < name);
      if (i < list.length && list[i].ref.node === name) found.set(name, list[i]);
    }
  else for (const c of list) if (names.includes(c.ref.node)) found.set(c.ref.node, c);
  return found;
}

/** candidatesFor in bySavingsRatio's order (emptiness and consolidation); a new array the caller may change. */
export function candidatesBySavings(
  reason: Reason,
  out: EvalOutput,
  index: ClusterIndex,
  types: ReadonlyMap<string, InstanceType>,
): Candidate[] {
  const { memo, list } = listed(reason, out, index, types);
  let ordered = memo.bySavings.get(reason);
  if (ordered === undefined) memo.bySavings.set(reason, (ordered = savingsOrder(memo, reason, list)));
  return ordered.slice();
}

/**
 * `list` most savings first: when followed from an earlier order (followedFrom), that order
 * without the changed names, with the changed names' candidates put in their places (an unchanged
 * name has the same candidate in both; bySavingsRatio is a total order, so this is the sort).
 */
function savingsOrder(memo: DigestMemo, reason: Reason, list: readonly Candidate[]): Candidate[] {
  const from = followedFrom(memo, memo.types, (m) => m.bySavings.get(reason));
  if (from === undefined) return list.slice().sort(bySavingsRatio);
  const { changed } = from;
  const out = from.list.filter((c) => !changed.has(c.ref.node));
  for (const c of list) {
    if (!changed.has(c.ref.node)) continue;
    const at = lowerBound(out.length, (k) => bySavingsRatio(out[k], c) < 0);
    out.splice(at, 0, c);
  }
  return out;
}

/**
 * Karpenter v1.14 order for emptiness and consolidation: price ÷ disruption cost, descending (ties by name, for
 * determinism).
 */
export const bySavingsRatio = (a: Candidate, b: Candidate): number =>
  b.ref.price / b.disruptionCost - a.ref.price / a.disruptionCost || a.ref.node.localeCompare(b.ref.node);

/**
 * Allowed disruptions for a reason, as a mutable budget mapping: per NodePool (unlimited = UNBOUNDED, as in
 * Karpenter) and, for kpol's cluster and selector budgets (issue 15), per scope. The evaluation decides every number
 * and which scopes hold which node; the mapping only spends them, so that one tick never starts more in a scope than
 * the scope allows, however its nodes are spread over pools.
 */
export class BudgetMapping {
  private readonly pools = new Map<string, number>();
  private readonly scopes = new Map<string, number>();

  constructor(
    private readonly out: EvalOutput,
    reason: Reason,
  ) {
    for (const [pool, p] of Object.entries(out.nodePools)) {
      const a = p.allowed[reason];
      this.pools.set(pool, a === undefined ? 0 : countOf(a));
    }
    for (const [id, s] of Object.entries(out.scopes ?? {})) {
      const a = s.allowed[reason];
      // A scope without this reason does not budget it (undefined); null is unlimited.
      if (a !== undefined) this.scopes.set(id, countOf(a));
    }
  }

  private scopesOf(c: Candidate): readonly string[] {
    // Most policies have no cluster or selector budgets: no lookup per candidate then.
    if (this.scopes.size === 0) return [];
    return (this.out.nodes[c.ref.node]?.budgetScopes ?? []).filter((id) => this.scopes.has(id));
  }

  /** How many more the candidate's pool and every scope holding it admit (0: none). */
  room(c: Candidate): number {
    let left = this.pools.get(c.ref.nodePool) ?? 0;
    for (const id of this.scopesOf(c)) left = Math.min(left, this.scopes.get(id)!);
    return left;
  }

  /** Spends one disruption of the candidate's pool and of every scope holding it. */
  spend(c: Candidate): void {
    this.pools.set(c.ref.nodePool, (this.pools.get(c.ref.nodePool) ?? 0) - 1);
    for (const id of this.scopesOf(c)) this.scopes.set(id, this.scopes.get(id)! - 1);
  }
}

/** The budget mapping of an evaluation for a reason (see BudgetMapping). */
export function budgetMapping(out: EvalOutput, reason: Reason): BudgetMapping {
  return new BudgetMapping(out, reason);
}

/**
 * Keeps candidates in order while their pool and scopes have budget left, spending one per candidate (Karpenter's
 * `mapping[pool]--`).
 */
export function takeWithinBudget(cands: readonly Candidate[], budget: BudgetMapping): Candidate[] {
  return cands.filter((c) => {
    if (budget.room(c) <= 0) return false;
    budget.spend(c);
    return true;
  });
}
