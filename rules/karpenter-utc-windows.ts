// SPDX-License-Identifier: Apache-2.0
// A window in some zone rewritten as Karpenter windows, which are always evaluated in UTC.
// Exact only for zones with one fixed offset and weekly-periodic schedules: every hit
// (day-of-week, hour, minute) moves by the offset, keeping its duration, and hits that share
// days, hours or minutes are grouped back into as few cron expressions as possible.
import { cronFields, cronNeverFires, validateCron } from './cron.js';
import type { WindowSpec } from './model.js';
import { fixedOffsetMinutes, groupWindows, startMinutes, weekdays, type DenyWindows } from './weekly-windows.js';
import { isKnownTimeZone } from './window-zone.js';

/**
 * UTC windows whose union is exactly `spec`'s active time. UTC specs come back unchanged;
 * other zones need a fixed offset and a weekly-periodic schedule, else `ok: false` with why.
 */
export function utcWindowsFor(spec: WindowSpec): DenyWindows {
  if (spec.error !== undefined) return { ok: false, reason: spec.error };
  const cron = validateCron(spec.cron);
  if (!cron.ok) return { ok: false, reason: `invalid schedule \`${spec.cron}\`: ${cron.error}` };
  if (spec.timeZone === 'UTC')
    return { ok: true, windows: [{ cron: cron.normalized, durationSeconds: spec.durationSeconds }] };
  if (!isKnownTimeZone(spec.timeZone)) return { ok: false, reason: `unknown time zone \`${spec.timeZone}\`` };
  const offset = fixedOffsetMinutes(spec.timeZone);
  if (typeof offset === 'string') return { ok: false, reason: offset };
  if (cronNeverFires(cron.normalized))
    return { ok: true, windows: [{ cron: cron.normalized, durationSeconds: spec.durationSeconds }] };
  const f = cronFields(cron.normalized);
  const days = weekdays(f);
  if (typeof days === 'string') return { ok: false, reason: days };
  if (offset === 0) return { ok: true, windows: [{ cron: cron.normalized, durationSeconds: spec.durationSeconds }] };
  const windows = startMinutes(f, days, offset).map((start) => ({ start, durationSeconds: spec.durationSeconds }));
  return { ok: true, windows: groupWindows(windows) };
}
