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

function applies(reasons: readonly Reason[] | null, reason: Reason): boolean {
  return reasons === null || reasons.includes(reason);
}

/**
 * The allowance of one reason. `disrupting` is the pool's count of disrupting nodes, which every
 * shared budget subtracts (KARPENTER.md#budget-counting step 5). A `per reason` budget (kpol's
 * independent bucket) subtracts `disruptingFor` instead: the nodes disrupting for this reason plus
 * those whose reason is unknown (KARPENTER.md#disruption-reason); it defaults to `disrupting`, so a
 * caller that cannot tell reasons apart fails closed to Karpenter's shared count. The binding
 * budget is the one that leaves least; without buckets that is the smallest, as in Karpenter.
 */
export function allowanceFor(
  events: readonly FiredEvent[],
  reason: Reason,
  numNodes: number,
  disrupting: number,
  disruptingFor: number = disrupting,
): Allowance {
  let value = UNBOUNDED;
  let left = Infinity;
  let boundBy: string | undefined;
  let quantity: Quantity | undefined;
  let bucket = false;
  for (const e of events) {
    if (e.type === 'fail-closed') return { budget: 0, allowed: 0, boundBy: e.rule, quantity: ZERO };
    let q: Quantity;
    let perReason = false;
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
  if (value >= UNBOUNDED) return { budget: null, allowed: null };
  return {
    budget: value,
    allowed: Math.max(left, 0),
    ...(boundBy ? { boundBy } : {}),
    ...(quantity ? { quantity } : {}),
    ...(bucket ? { bucket: true as const } : {}),
  };
}
