// SPDX-License-Identifier: Apache-2.0
// kpol "allow windows" exported to Karpenter, which only has deny-style budget windows
// evaluated in UTC: the complement of an allow window as UTC cron + duration windows.
import type { WindowSpec } from './model.js';
import { cronFields, cronNeverFires } from './cron.js';
import { formatValues, type CronFields } from './cron-fields.js';
import { WindowError, compileWindow } from './window-compile.js';
import { fixedOffsetMs } from './window-zone.js';

/** One Karpenter-style window: evaluated in UTC, duration in whole minutes. */
export interface DenyWindow {
  cron: string;
  durationSeconds: number;
}

export type DenyWindows = { ok: true; windows: DenyWindow[] } | { ok: false; reason: string };

const WEEK_MINUTES = 7 * 1440;

/**
 * UTC windows whose union is exactly the complement of `allow` at every instant, so a budget
 * `nodes: "0"` on each of them plus an always-on `nodes: N` reproduces "N only during allow".
 * Supported: weekly-periodic schedules (every month, every day of month; any minutes, hours
 * and days of week) in UTC or a zone with one fixed offset (days of week shift with it), and
 * durations in whole minutes. An allow window that is always open yields no windows; one
 * that never opens yields a single always-active window. Otherwise `ok: false` with a reason.
 */
export function denyWindowsFor(allow: WindowSpec): DenyWindows {
  let compiled;
  try {
    compiled = compileWindow(allow);
  } catch (e) {
    if (e instanceof WindowError) return { ok: false, reason: e.message };
    throw e;
  }
  if (allow.durationSeconds % 60 !== 0) {
    return { ok: false, reason: `the duration must be whole minutes: Karpenter budget durations have only hours and minutes` };
  }
  const offsetMs = fixedOffsetMs(allow.timeZone);
  if (offsetMs === null) {
    return { ok: false, reason: `time zone \`${allow.timeZone}\` observes daylight saving time (or changes its UTC offset), which Karpenter's UTC-only windows cannot follow` };
  }
  if (offsetMs % 60_000 !== 0) return { ok: false, reason: `time zone \`${allow.timeZone}\` has an offset that is not whole minutes` };
  if (cronNeverFires(compiled.schedule.cron)) return { ok: true, windows: [] }; // always active
  const f = cronFields(compiled.schedule.cron);
  const days = weekdays(f);
  if (typeof days === 'string') return { ok: false, reason: days };
  const allowed = allowedMinutesOfWeek(f, days, offsetMs / 60_000, allow.durationSeconds / 60);
  return { ok: true, windows: groupGaps(gapsOf(allowed)) };
}

/** The days of week a weekly-periodic schedule fires on, or why it is not weekly. */
function weekdays(f: CronFields): number[] | string {
  if (!f.month.star && f.month.values.length < 12) return 'the schedule restricts months, so it does not repeat every week';
  const everyDom = f.dom.values.length === 31;
  const everyDow = f.dow.values.length === 7;
  if (f.dom.star || f.dow.star) {
    if (!everyDom) return 'the schedule restricts days of the month, so it does not repeat every week';
    return f.dow.values;
  }
  // Both restricted: robfig fires when either matches.
  if (everyDom || everyDow) return [0, 1, 2, 3, 4, 5, 6];
  return 'the schedule restricts days of the month, so it does not repeat every week';
}

/** Minute-of-week (UTC, 0 = Sunday 00:00) → allow window active. */
function allowedMinutesOfWeek(f: CronFields, days: number[], offsetMinutes: number, durationMinutes: number): boolean[] {
  const allowed = new Array<boolean>(WEEK_MINUTES).fill(false);
  if (durationMinutes === 0) return allowed;
  const span = Math.min(durationMinutes, WEEK_MINUTES);
  for (const day of days) {
    for (const hour of f.hour.values) {
      for (const minute of f.minute.values) {
        const start = mod(day * 1440 + hour * 60 + minute - offsetMinutes, WEEK_MINUTES);
        for (let i = 0; i < span; i++) allowed[(start + i) % WEEK_MINUTES] = true;
      }
    }
  }
  return allowed;
}

function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}

/** Maximal runs of not-allowed minutes, wrapping around the end of the week: [start, length]. */
function gapsOf(allowed: boolean[]): Array<[number, number]> {
  const firstAllowed = allowed.indexOf(true);
  if (firstAllowed < 0) return [[0, WEEK_MINUTES]];
  const gaps: Array<[number, number]> = [];
  // Start scanning at an allowed minute so no gap is cut by the week boundary.
  for (let i = 0; i < WEEK_MINUTES; ) {
    const at = (firstAllowed + i) % WEEK_MINUTES;
    if (allowed[at]) {
      i++;
      continue;
    }
    let length = 0;
    while (i < WEEK_MINUTES && !allowed[(firstAllowed + i) % WEEK_MINUTES]) {
      length++;
      i++;
    }
    gaps.push([at, length]);
  }
  return gaps;
}

/**
 * Gaps as few cron windows: gaps of one length that start at the same minute and hour on
 * several days share a day-of-week list, then hours with the same days share an hour list,
 * then minutes with the same hours and days share a minute list. Each step groups exactly,
 * so every combination the final cron lists is a gap.
 */
function groupGaps(gaps: Array<[number, number]>): DenyWindow[] {
  const group = <T>(items: T[], key: (t: T) => string): T[][] => {
    const map = new Map<string, T[]>();
    for (const item of items) map.set(key(item), [...(map.get(key(item)) ?? []), item]);
    return [...map.values()];
  };
  type Gap = { days: number[]; hours: number[]; minutes: number[]; length: number };
  let items: Gap[] = gaps.map(([start, length]) => ({
    days: [Math.floor(start / 1440)],
    hours: [Math.floor(start / 60) % 24],
    minutes: [start % 60],
    length,
  }));
  const merge = (by: (g: Gap) => string, field: 'days' | 'hours' | 'minutes'): Gap[] =>
    group(items, by).map((members) => ({ ...members[0], [field]: members.flatMap((m) => m[field]).sort((a, b) => a - b) }));
  items = merge((g) => `${g.length}|${g.hours}|${g.minutes}`, 'days');
  items = merge((g) => `${g.length}|${g.days}|${g.minutes}`, 'hours');
  items = merge((g) => `${g.length}|${g.days}|${g.hours}`, 'minutes');
  return items.map((g) => ({
    cron: [field(g.minutes, 60), field(g.hours, 24), '*', '*', field(g.days, 7)].join(' '),
    durationSeconds: g.length * 60,
  }));
}

function field(values: number[], size: number): string {
  return values.length === size ? '*' : formatValues(values);
}
