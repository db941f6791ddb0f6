// SPDX-License-Identifier: Apache-2.0
// Rate budgets (`budget N|N% per D [for REASONS]`, rules/README §3.6.1): the window D and the
// count are bounded by what kpol's record of disruption starts holds
// (src/core/cluster/disruption-starts.ts), and a rate that can never be met is a freeze in
// disguise. Whether a percentage rounds to 0 depends on the pool's node count at run time: only
// 0% is decidable statically (any other percentage of one node or more rounds up to at least 1).
import type { BudgetStmt } from '../../grammar/ast.js';
import { diagnostic } from '../../grammar/diagnostic.js';
import { formatDuration } from '../duration.js';
import { report, type CheckContext, type PolicyUnit } from './context.js';
import { durationSeconds } from './durations.js';

/** The shortest rate window: kpol evaluates every second, so a window below a minute counts almost nothing. */
export const MIN_RATE_SECONDS = 60;
/** The longest rate window: the record of starts on the NodePool keeps at most this much history. */
export const MAX_RATE_SECONDS = 7 * 24 * 3600;
/** How many starts the record keeps per NodePool (newest first); a larger rate count cannot be decided. */
export const MAX_RATE_STARTS = 1000;

/** `per D` in seconds, or undefined (and a diagnostic) when D cannot be a rate window. */
export function lowerRatePeriod(unit: PolicyUnit, stmt: BudgetStmt): number | undefined {
  if (!stmt.per) return undefined;
  if (!stmt.nodes.percent && stmt.nodes.value > MAX_RATE_STARTS)
    report(unit, diagnostic('rateCountTooLarge', stmt.nodes.range, { text: stmt.nodes.text }));
  const d = durationSeconds(stmt.per);
  if ('diagnostic' in d) {
    report(unit, d.diagnostic);
    return undefined;
  }
  if (d.seconds < MIN_RATE_SECONDS || d.seconds > MAX_RATE_SECONDS) {
    report(unit, diagnostic('ratePeriodRange', stmt.per.range, { text: stmt.per.text }));
    return undefined;
  }
  return d.seconds;
}

/** KPOL3060: `budget 0 per D` (or `0%`) never allows anything; `budget 0` says the same plainly. */
export function checkRateBudgets(ctx: CheckContext): void {
  for (const unit of ctx.units) {
    for (const b of unit.spec.budgets) {
      if (b.perSeconds === undefined || b.nodes.value !== 0 || !b.source) continue;
      const quantity = b.nodes.kind === 'percent' ? '0%' : '0';
      const reasons = b.reasons ? ` for ${b.reasons.join(', ')}` : '';
      const per = formatDuration(b.perSeconds);
      report(
        unit,
        diagnostic('rateBudgetFreezes', b.source, { budget: `budget ${quantity} per ${per}${reasons}`, reasons, per }),
      );
    }
  }
}
