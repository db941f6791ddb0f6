// SPDX-License-Identifier: Apache-2.0
// Analysis: a window with a zero duration is never active (Karpenter's `duration: 0m`).
import { diagnostic } from '../../grammar/diagnostic.js';
import { report, type CheckContext } from './context.js';
import { neverOpens, scheduleText } from './window-shape.js';

export function checkWindowNeverOpens(ctx: CheckContext): void {
  for (const unit of ctx.units) {
    for (const { expr, duration, spec } of unit.windows) {
      if (!neverOpens(spec)) continue;
      const args = { schedule: scheduleText(expr), duration: duration.text };
      report(unit, diagnostic('windowNeverOpens', duration.range, args));
    }
  }
}
