// SPDX-License-Identifier: Apache-2.0
// Budget arithmetic: combines the budget, freeze and pause events a pool-rule run fired into the
// allowance per reason, exactly as Karpenter's GetAllowedDisruptionsByReason and
// BuildDisruptionBudgetMapping compute it (KARPENTER.md#budget-allowance–KARPENTER.md#budget-counting).
import type { FiredEvent } from './rule-events.js';
import { UNBOUNDED, type Quantity, type Reason } from './model.js';

/** One budget's value when it applies: percent rounds up (float64, multiply first); counts are absolute. */
export function quantityValue(q: Quantity, numNodes: number): number {
  return q.kind === 'count' ? q.value : Math.ceil((q.value * numNodes) / 100);
}

export interface Allowance {
  /** Before subtracting disrupting nodes; null = unlimited. */
  budget: number | null;
  /** After subtracting disrupting nodes, floored at 0; null = unlimited. */
  allowed: number | null;
  /** Which rule bound the result (for explain): a budget id, a freeze, or fail-closed. */
  boundBy?: string;
  /**
   * The binding budget as written (a percent stays a percent), or a count of 0 for a freeze, a
   * pause, a closed allow window or fail-closed; absent when unlimited. Govern mode hands it to Karpenter,
   * which then applies it to its own node count.
   */
  quantity?: Quantity;
  /** The binding budget is a `per reason` bucket (it subtracted `disruptingFor`, not `disrupting`). */
  bucket?: true;
}

const ZERO: Quantity = { kind: 'count', value: 0 };

/**
 * How many disruptions for `reasons` (null: any) started in the sliding window of `perSeconds`
 * ending now; undefined when the record of starts cannot be read (the rate budget then allows
 * nothing). Rate budgets only (`budget N per D`, rules/README §3.6.1).
 */
export type StartCount = (perSeconds: number, reasons: readonly Reason[] | null) => number | undefined;

/** For callers with no record at all (a policy without rate budgets never asks): unknown, so 0 allowed. */
export const NO_STARTS_KNOWN: StartCount = () => undefined;

/** One recorded start, as the counting needs it. */
export interface StartInstant {
  reason: Reason;
  atMs: number;
}

/**
 * The starts in `(now − per, now]` (later ones, from a clock ahead of ours, count too). `starts`
 * is newest first and holds at most `cap`: when it is full and even its oldest start is inside
 * the window, more may have been forgotten, so the count is unbounded (fail closed).
 */
export function countStarts(
  starts: readonly StartInstant[],
  nowMs: number,
  perSeconds: number,
  reasons: readonly Reason[] | null,
  cap: number,
): number {
  const since = nowMs - perSeconds * 1000;
  if (starts.length >= cap && starts[starts.length - 1]!.atMs > since) return Number.POSITIVE_INFINITY;
  let n = 0;
  for (const s of starts) if (s.atMs > since && applies(reasons, s.reason)) n++;
  return n;
}

/**
 * When the next start is allowed by a rate of `limit` per `perSeconds`, if the window is used up: the
 * instant the oldest start that must leave the window leaves it. Undefined while starts are left.
 */
export function nextRateSlot(
  starts: readonly StartInstant[],
  nowMs: number,
  perSeconds: number,
  reasons: readonly Reason[] | null,
  limit: number,
): number | undefined {
  const since = nowMs - perSeconds * 1000;
  const inWindow = starts.filter((s) => s.atMs > since && applies(reasons, s.reason)).map((s) => s.atMs);
  if (inWindow.length < limit) return undefined;
  inWindow.sort((a, b) => b - a); // newest first: the limit-th newest must leave before one more may start
  return limit === 0 ? undefined : inWindow[limit - 1]! + perSeconds * 1000;
}

function applies(reasons: readonly Reason[] | null, reason: Reason): boolean {
  return reasons === null || reasons.includes(reason);
}

/** What a rate budget leaves for `reason` now: 0 when its starts cannot be counted (fail closed). */
function rateLeft(
  e: Extract<FiredEvent, { type: 'budget' }>,
  reason: Reason,
  numNodes: number,
  started: StartCount,
): number {
  const limit = e.params.cap === 'zero' ? 0 : quantityValue(e.params.nodes, numNodes);
  // With `per reason`, each reason counts only its own starts.
  const used = started(e.params.per!, e.params.perReason ? [reason] : e.params.reasons);
  return used === undefined ? 0 : Math.max(limit - used, 0);
}

/** What a pool's allowance is computed from, besides the events its rule graph fired. */
export interface PoolCounts {
  /** The pool's nodes, which percentages are taken of. */
  nodes: number;
  /** The pool's disrupting nodes, which every shared budget subtracts (KARPENTER.md#budget-counting step 5). */
  disrupting: number;
  /**
   * What a `per reason` budget (kpol's independent bucket) subtracts instead: the nodes disrupting
   * for this reason plus those whose reason is unknown (KARPENTER.md#disruption-reason). It defaults
   * to `disrupting`, so a caller that cannot tell reasons apart fails closed to Karpenter's shared count.
   */
  disruptingFor?: number;
  /**
   * The pool's disruption starts, for rate budgets: a rate budget of N per D leaves
   * `max(N − started within D, 0)`, which is not reduced by the disrupting nodes again (they are
   * among the starts, or started longer ago than D); without it a rate budget allows nothing.
   */
  started?: StartCount;
}

/**
 * The allowance of one reason. The binding budget is the one that leaves least; without buckets
 * that is the smallest, as in Karpenter.
 */
export function allowanceFor(events: readonly FiredEvent[], reason: Reason, counts: PoolCounts): Allowance {
  const { nodes: numNodes, disrupting, disruptingFor = disrupting, started = NO_STARTS_KNOWN } = counts;
  let value = UNBOUNDED;
  let left = Infinity;
  let boundBy: string | undefined;
  let quantity: Quantity | undefined;
  let bucket = false;
  let rate = UNBOUNDED;
  let rateBy: string | undefined;
  for (const e of events) {
    if (e.type === 'fail-closed') return { budget: 0, allowed: 0, boundBy: e.rule, quantity: ZERO };
    let q: Quantity;
    let perReason = false;
    if (e.type === 'budget' && e.params.per !== undefined) {
      if (!applies(e.params.reasons, reason)) continue;
      const r = rateLeft(e, reason, numNodes, started);
      if (r < rate) {
        rate = r;
        rateBy = e.rule;
      }
      continue;
    }
    if (e.type === 'budget') {
      if (!applies(e.params.reasons, reason)) continue;
      q = e.params.cap === 'zero' ? ZERO : e.params.nodes;
      perReason = e.params.perReason;
    } else if (e.type === 'freeze' || e.type === 'pause') {
      if (!applies(e.params.reasons, reason)) continue;
      q = ZERO;
    } else continue;
    const v = quantityValue(q, numNodes);
    const l = v - (perReason ? disruptingFor : disrupting);
    if (l < left || (l === left && v < value)) {
      left = l;
      value = v;
      boundBy = e.rule;
      quantity = q;
      bucket = perReason;
    }
  }
  if (rateBy !== undefined) {
    // The rate binds when it leaves no more than the concurrency budgets do.
    const concurrent = value >= UNBOUNDED ? UNBOUNDED : Math.max(left, 0);
    const budget = Math.min(value, rate);
    if (rate <= concurrent) return { budget, allowed: rate, boundBy: rateBy, quantity: { kind: 'count', value: rate } };
    return {
      budget,
      allowed: concurrent,
      ...(boundBy && { boundBy }),
      ...(quantity && { quantity }),
      ...(bucket && { bucket: true as const }),
    };
  }
  if (value >= UNBOUNDED) return { budget: null, allowed: null };
  return {
    budget: value,
    allowed: Math.max(left, 0),
    ...(boundBy ? { boundBy } : {}),
    ...(quantity ? { quantity } : {}),
    ...(bucket ? { bucket: true as const } : {}),
  };
}
