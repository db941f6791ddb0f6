// SPDX-License-Identifier: Apache-2.0
// Analysis: a budget that can never be the minimum. Conservative: reported only when another
// budget is active at every instant, applies to every reason this one does, and has a value
// of the same kind that is no larger — then per reason min() never picks this one.
import { diagnostic, format } from '../../grammar/diagnostic.js';
import { MESSAGES } from '../../grammar/messages.js';
import { formatDuration } from '../duration.js';
import type { BudgetSpec, Reason } from '../model.js';
import { budgetedReasons } from './applicable-reasons.js';
import { report, type CheckContext } from './context.js';
import { alwaysOpen } from './window-shape.js';

export function checkBudgetShadowed(ctx: CheckContext): void {
  for (const unit of ctx.units) {
    if (unit.incomplete) continue;
    // A rate budget caps starts over time, not concurrency: neither kind can shadow the other.
    const budgets = unit.spec.budgets.filter(
      (b) => b.source && !b.error && b.reasons?.length !== 0 && b.perSeconds === undefined,
    );
    if (budgets.length < 2) continue;
    const all = budgetedReasons(unit.spec);
    const always = budgets.map(isAlwaysActive);
    for (let i = 0; i < budgets.length; i++) {
      const a = budgets[i]!;
      if (a.mode !== 'budget') continue;
      const stricter = budgets.find(
        (b, j) => j !== i && always[j] && shadows(b, a, all) && !(shadows(a, b, all) && always[i] && j > i),
      );
      if (!stricter?.source || !a.source) continue;
      const args = { budget: describe(a), stricter: describe(stricter), reasons: describeReasons(a.reasons) };
      report(
        unit,
        diagnostic('budgetShadowed', a.source, args, {
          related: [{ range: stricter.source, message: MESSAGES.stricterBudgetHere.text }],
        }),
      );
    }
  }
}

function isAlwaysActive(b: BudgetSpec): boolean {
  // An allow budget is 0 outside its window, so only an always-open one is a plain limit.
  return b.window ? alwaysOpen(b.window) : b.mode === 'budget';
}

/**
 * `b` is at least as strict as `a` for every reason `a` applies to. Only budgets that count alike
 * compare: a `per reason` bucket subtracts fewer nodes than a shared budget, so neither shadows
 * the other here (bucket-analysis.ts reports a bucket under a stricter shared budget).
 */
function shadows(b: BudgetSpec, a: BudgetSpec, all: readonly Reason[]): boolean {
  if (!!b.perReason !== !!a.perReason) return false;
  if (b.nodes.kind !== a.nodes.kind || b.nodes.value > a.nodes.value) return false;
  const bReasons = b.reasons ?? all;
  return (a.reasons ?? all).every((r) => bReasons.includes(r));
}

/** The budget as kpol writes it (schedule normalised), to tell two similar budgets apart. */
function describe(b: BudgetSpec): string {
  const quantity = b.nodes.kind === 'percent' ? `${b.nodes.value}%` : String(b.nodes.value);
  const reasons = b.reasons ? ` ${b.reasons.join(', ')}` : '';
  const window = b.window
    ? ` during ${JSON.stringify(b.window.cron)} for ${formatDuration(b.window.durationSeconds)}`
    : '';
  return b.mode === 'allow'
    ? `allow ${quantity}${reasons} only${window}`
    : `budget ${quantity}${reasons ? ` for${reasons}` : ''}${window}`;
}

function describeReasons(reasons: Reason[] | null): string {
  if (!reasons) return MESSAGES.everyReason.text;
  return reasons.map((r) => format('`{r}`', { r })).join(', ');
}
