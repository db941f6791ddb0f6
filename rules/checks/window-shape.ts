// SPDX-License-Identifier: Apache-2.0
// Facts about a valid window that the analysis stages share, in Karpenter's terms: a schedule
// that never fires is always active (whatever the duration), a zero duration never opens.
import type { WindowExpr } from '../../grammar/ast.js';
import type { WindowSpec } from '../model.js';
import { cronNeverFires } from '../cron.js';
import { scheduleAlwaysActive, windowNeverOpens, WindowError } from '../window.js';

export function neverFires(spec: WindowSpec): boolean {
  return cronNeverFires(spec.cron);
}

/** Active at every instant, because the duration covers the period (not because it never fires). */
export function coversPeriod(spec: WindowSpec): boolean {
  return !neverFires(spec) && scheduleAlwaysActive(spec);
}

/** Always active for any reason; false for a window that cannot be evaluated (it fails closed). */
export function alwaysOpen(spec: WindowSpec): boolean {
  try {
    return scheduleAlwaysActive(spec);
  } catch (e) {
    if (e instanceof WindowError) return false;
    throw e;
  }
}

export function neverOpens(spec: WindowSpec): boolean {
  return !neverFires(spec) && windowNeverOpens(spec);
}

/** The schedule as written (a cron or the name of a declared schedule). */
export function scheduleText(expr: WindowExpr): string {
  return expr.schedule.kind === 'Str' ? expr.schedule.value : expr.schedule.text;
}
