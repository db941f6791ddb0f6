// SPDX-License-Identifier: Apache-2.0
// Analysis of reason buckets (`budget … per reason`) and pod protection (`pods … never REASONS`):
// a bucket a shared budget always beats, a bucket of 0, and a protection from eventual reasons
// that the policy's own termination grace period lifts.
import { diagnostic, format } from '../../grammar/diagnostic.js';
import { MESSAGES } from '../../grammar/messages.js';
import type { BudgetSpec, Reason } from '../model.js';
import { budgetedReasons } from './applicable-reasons.js';
import { report, type CheckContext } from './context.js';
import { alwaysOpen } from './window-shape.js';

const EVENTUAL: readonly Reason[] = ['Drifted', 'Expired'];

export function checkBuckets(ctx: CheckContext): void {
  for (const unit of ctx.units) {
    if (unit.incomplete) continue;
    const all = budgetedReasons(unit.spec);
    const budgets = unit.spec.budgets.filter((b) => b.source && !b.error && b.reasons?.length !== 0);
    for (const a of budgets) {
      if (!a.perReason || !a.source) continue;
      if (a.nodes.value === 0) {
        report(unit, diagnostic('bucketOfZero', a.source));
        continue;
      }
      // A shared budget counts every disrupting node, a bucket only its own reason's (and the
      // unknown ones): a shared budget that is always active, covers the bucket's reasons and
      // is no larger leaves at most what the bucket leaves, at every instant.
      const stricter = budgets.find(
        (b) =>
          !b.perReason &&
          b.mode === 'budget' &&
          (!b.window || alwaysOpen(b.window)) &&
          b.nodes.kind === a.nodes.kind &&
          b.nodes.value <= a.nodes.value &&
          (a.reasons ?? all).every((r) => (b.reasons ?? all).includes(r)),
      );
      if (!stricter?.source) continue;
      report(
        unit,
        diagnostic(
          'bucketShadowed',
          a.source,
          { budget: describe(a), stricter: describe(stricter), reasons: reasonsText(a.reasons) },
          { related: [{ range: stricter.source, message: MESSAGES.stricterBudgetHere.text }] },
        ),
      );
    }
    if (unit.spec.terminationGracePeriodSeconds === undefined) continue;
    for (const p of unit.spec.podWindows) {
      const lifted = (p.reasons ?? []).filter((r) => EVENTUAL.includes(r));
      if (lifted.length > 0 && p.source)
        report(
          unit,
          diagnostic('protectionOverridden', p.source, { reasons: lifted.map((r) => `\`${r}\``).join(', ') }),
        );
    }
  }
}

function describe(b: BudgetSpec): string {
  const quantity = b.nodes.kind === 'percent' ? `${b.nodes.value}%` : String(b.nodes.value);
  const reasons = b.reasons ? ` for ${b.reasons.join(', ')}` : '';
  return `budget ${quantity}${reasons}${b.perReason ? ' per reason' : ''}${b.window ? ' during …' : ''}`;
}

function reasonsText(reasons: Reason[] | null): string {
  if (!reasons) return MESSAGES.everyReason.text;
  return reasons.map((r) => format('`{r}`', { r })).join(', ');
}
