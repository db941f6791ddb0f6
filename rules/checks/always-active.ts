// SPDX-License-Identifier: Apache-2.0
// Analysis: a duration at least the schedule's period (`@hourly` for 1h, `@daily` for 48h)
// makes the window permanently active; for an allow window `only during` then means nothing.
import { diagnostic } from '../../grammar/diagnostic.js';
import { report, type CheckContext } from './context.js';
import { coversPeriod, scheduleText } from './window-shape.js';

export function checkAlwaysActive(ctx: CheckContext): void {
  for (const unit of ctx.units) {
    for (const { expr, duration, spec, use } of unit.windows) {
      if (!coversPeriod(spec)) continue;
      const schedule = scheduleText(expr);
      const d =
        use === 'allow'
          ? diagnostic('allowWindowAlwaysOpen', expr.range, { schedule })
          : diagnostic('alwaysActive', expr.range, { schedule, duration: duration.text });
      report(unit, d);
    }
  }
}
