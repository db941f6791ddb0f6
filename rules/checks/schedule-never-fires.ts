// SPDX-License-Identifier: Apache-2.0
// Analysis: a schedule with no date to fire on (`0 0 30 2 *`) makes its window always active,
// which Karpenter does too (robfig returns the zero time); almost certainly not what was meant.
import { diagnostic } from '../../grammar/diagnostic.js';
import { report, type CheckContext } from './context.js';
import { neverFires, scheduleText } from './window-shape.js';

export function checkScheduleNeverFires(ctx: CheckContext): void {
  for (const unit of ctx.units) {
    for (const { expr, spec } of unit.windows) {
      if (neverFires(spec))
        report(unit, diagnostic('scheduleNeverFires', expr.schedule.range, { cron: scheduleText(expr) }));
    }
  }
}
