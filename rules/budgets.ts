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
}

const ZERO: Quantity = { kind: 'count', value: 0 };

function applies(reasons: readonly Reason[] | null, reason: Reason): boolean {
  return reasons === null || reasons.includes(reason);
}

export function allowanceFor(
  events: readonly FiredEvent[],
  reason: Reason,
  numNodes: number,
  disrupting: number,
): Allowance {
  let value = UNBOUNDED;
  let boundBy: string | undefined;
  let quantity: Quantity | undefined;
  for (const e of events) {
    if (e.type === 'fail-closed') return { budget: 0, allowed: 0, boundBy: e.rule, quantity: ZERO };
    let q: Quantity;
    if (e.type === 'budget') {
      if (!applies(e.params.reasons, reason)) continue;
      q = e.params.cap === 'zero' ? ZERO : e.params.nodes;
    } else if (e.type === 'freeze' || e.type === 'pause') {
      if (!applies(e.params.reasons, reason)) continue;
      q = ZERO;
    } else continue;
    const v = quantityValue(q, numNodes);
    if (v < value) {
      value = v;
      boundBy = e.rule;
      quantity = q;
    }
  }
  if (value >= UNBOUNDED) return { budget: null, allowed: null };
  return {
    budget: value,
    allowed: Math.max(value - disrupting, 0),
    ...(boundBy ? { boundBy } : {}),
    ...(quantity ? { quantity } : {}),
  };
}
