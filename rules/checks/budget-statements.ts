// SPDX-License-Identifier: Apache-2.0
// Stage: `budget` and `allow` statements → BudgetSpec, ids `b0, b1, …` in statement order.
// A policy without either gets Karpenter's default: one 10% budget for every reason. `per D` makes a
// rate budget (rate-budgets.ts).
import type { AllowStmt, BudgetStmt, QuantityLit } from '../../grammar/ast.js';
import { diagnostic } from '../../grammar/diagnostic.js';
import type { BudgetSpec, Quantity } from '../model.js';
import { report, type CheckContext, type PolicyUnit } from './context.js';
import { lowerWindow } from './lower-window.js';
import { lowerRatePeriod } from './rate-budgets.js';
import { lowerReasons } from './reasons.js';

export const DEFAULT_BUDGET: Readonly<BudgetSpec> = {
  id: 'b0',
  nodes: { kind: 'percent', value: 10 },
  reasons: null,
  mode: 'budget',
};

export function lowerBudgets(ctx: CheckContext): void {
  for (const unit of ctx.units) {
    const stmts = unit.ast.statements.filter(
      // A selector budget (`on nodes where`) is not a pool budget: scoped-budgets.ts lowers it.
      (s): s is BudgetStmt | AllowStmt => (s.kind === 'Budget' && !s.selector) || s.kind === 'Allow',
    );
    unit.spec.budgets =
      stmts.length === 0 ? [{ ...DEFAULT_BUDGET }] : stmts.map((s, i) => lowerBudget(unit, s, `b${i}`));
  }
}

function lowerBudget(unit: PolicyUnit, stmt: BudgetStmt | AllowStmt, id: string): BudgetSpec {
  const budget: BudgetSpec = {
    id,
    nodes: lowerQuantity(unit, stmt.nodes),
    reasons: lowerReasons(unit, stmt.reasons),
    mode: stmt.kind === 'Allow' ? 'allow' : 'budget',
    source: stmt.range,
  };
  if (stmt.kind === 'Budget' && stmt.perReason) budget.perReason = true;
  if (stmt.kind === 'Budget' && stmt.per) {
    // A rate window that cannot be held is an error; should the spec be used anyway, it fails closed.
    const perSeconds = lowerRatePeriod(unit, stmt);
    if (perSeconds === undefined) budget.error = `rate window ${stmt.per.text} cannot be evaluated`;
    else budget.perSeconds = perSeconds;
  }
  if (stmt.window) {
    budget.window = lowerWindow(unit, stmt.window, stmt.kind === 'Allow' ? 'allow' : 'budget');
    if (budget.window.error) budget.error = budget.window.error;
  }
  return budget;
}

/** Karpenter reads a budget's `nodes` into an int32 (intstr.FromInt): more wraps around. */
export const MAX_BUDGET_NODES = 2_147_483_647;

function lowerQuantity(unit: PolicyUnit, lit: QuantityLit): Quantity {
  if (!lit.percent) {
    if (lit.value > MAX_BUDGET_NODES) report(unit, diagnostic('countTooLarge', lit.range, { text: lit.text }));
    return { kind: 'count', value: Math.min(lit.value, MAX_BUDGET_NODES) };
  }
  if (lit.value > 100) report(unit, diagnostic('percentOver100', lit.range, { text: lit.text }));
  return { kind: 'percent', value: Math.min(lit.value, 100) };
}
