// SPDX-License-Identifier: Apache-2.0
// A window in some zone rewritten as Karpenter windows, which are always evaluated in UTC.
// Exact only for zones with one fixed offset and weekly-periodic schedules: every hit
// (day-of-week, hour, minute) moves by the offset, keeping its duration, and hits that share
// days, hours or minutes are grouped back into as few cron expressions as possible.
import { cronFields, cronNeverFires, validateCron } from './cron.js';
import { formatValues, type CronFields } from './cron-fields.js';
import type { WindowSpec } from './model.js';
import type { DenyWindow, DenyWindows } from './window-complement.js';
import { fixedOffsetMs, isKnownTimeZone } from './window-zone.js';

const WEEK_MINUTES = 7 * 1440;

/** The days of week a schedule fires on when it repeats every week, else why it does not. */
function weeklyDays(f: CronFields): number[] | string {
  if (!f.month.star && f.month.values.length < 12) return 'the schedule restricts months, so it does not repeat every week';
  const everyDom = f.dom.values.length === 31;
  if (f.dom.star || f.dow.star) return everyDom ? f.dow.values : 'the schedule restricts days of the month, so it does not repeat every week';
  if (everyDom || f.dow.values.length === 7) return [0, 1, 2, 3, 4, 5, 6]; // both restricted: robfig ORs them
  return 'the schedule restricts days of the month, so it does not repeat every week';
}

const field = (values: number[], size: number): string => (values.length === size ? '*' : formatValues(values));

/** Start minutes-of-week (UTC) as few crons: group days, then hours, then minutes (each step exact). */
function group(starts: number[], durationSeconds: number): DenyWindow[] {
  type Hit = { days: number[]; hours: number[]; minutes: number[] };
  let items: Hit[] = starts.map((s) => ({ days: [Math.floor(s / 1440)], hours: [Math.floor(s / 60) % 24], minutes: [s % 60] }));
  const merge = (key: (h: Hit) => string, by: 'days' | 'hours' | 'minutes'): Hit[] => {
    const map = new Map<string, Hit>();
    for (const h of items) {
      const k = key(h);
      const prev = map.get(k);
      if (prev) prev[by] = [...prev[by], ...h[by]].sort((a, b) => a - b);
      else map.set(k, { ...h });
    }
    return [...map.values()];
  };
  items = merge((h) => `${h.hours}|${h.minutes}`, 'days');
  items = merge((h) => `${h.days}|${h.minutes}`, 'hours');
  items = merge((h) => `${h.days}|${h.hours}`, 'minutes');
  return items.map((h) => ({ cron: [field(h.minutes, 60), field(h.hours, 24), '*', '*', field(h.days, 7)].join(' '), durationSeconds }));
}

/**
 * UTC windows whose union is exactly `spec`'s active time. UTC specs come back unchanged;
 * other zones need a fixed offset and a weekly-periodic schedule, else `ok: false` with why.
 */
export function utcWindowsFor(spec: WindowSpec): DenyWindows {
  if (spec.error !== undefined) return { ok: false, reason: spec.error };
  const cron = validateCron(spec.cron);
  if (!cron.ok) return { ok: false, reason: `invalid schedule \`${spec.cron}\`: ${cron.error}` };
  if (spec.timeZone === 'UTC') return { ok: true, windows: [{ cron: cron.normalized, durationSeconds: spec.durationSeconds }] };
  if (!isKnownTimeZone(spec.timeZone)) return { ok: false, reason: `unknown time zone \`${spec.timeZone}\`` };
  const offsetMs = fixedOffsetMs(spec.timeZone);
  if (offsetMs === null) {
    return { ok: false, reason: `time zone \`${spec.timeZone}\` observes daylight saving time (or changes its UTC offset), which Karpenter's UTC-only windows cannot follow` };
  }
  if (offsetMs % 60_000 !== 0) return { ok: false, reason: `time zone \`${spec.timeZone}\` has an offset that is not whole minutes` };
  if (cronNeverFires(cron.normalized)) return { ok: true, windows: [{ cron: cron.normalized, durationSeconds: spec.durationSeconds }] };
  const f = cronFields(cron.normalized);
  const days = weeklyDays(f);
  if (typeof days === 'string') return { ok: false, reason: days };
  const offset = offsetMs / 60_000;
  if (offset === 0) return { ok: true, windows: [{ cron: cron.normalized, durationSeconds: spec.durationSeconds }] };
  const starts = new Set<number>();
  for (const d of days) {
    for (const h of f.hour.values) {
      for (const m of f.minute.values) starts.add((((d * 1440 + h * 60 + m - offset) % WEEK_MINUTES) + WEEK_MINUTES) % WEEK_MINUTES);
    }
  }
  return { ok: true, windows: group([...starts].sort((a, b) => a - b), spec.durationSeconds) };
}
