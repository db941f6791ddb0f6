// SPDX-License-Identifier: Apache-2.0
// Analysis: once any budget is written, a reason that none applies to is unlimited
// (Karpenter's 2147483647) — the 10% default exists only when budgets are omitted.
import { diagnostic } from '../../grammar/diagnostic.js';
import { report, type CheckContext } from './context.js';
import { reachableReasons } from './applicable-reasons.js';

export function checkReasonUnlimited(ctx: CheckContext): void {
  for (const unit of ctx.units) {
    if (unit.incomplete) continue;
    const budgets = unit.spec.budgets;
    if (!budgets.some((b) => b.source)) continue;
    for (const reason of reachableReasons(unit.spec)) {
      if (budgets.some((b) => b.reasons === null || b.reasons.includes(reason))) continue;
      report(unit, diagnostic('reasonUnlimited', unit.ast.name.range, { reason }));
    }
  }
}
