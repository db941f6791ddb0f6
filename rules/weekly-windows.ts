// SPDX-License-Identifier: Apache-2.0
// Weekly-periodic schedules as minutes of the week, and back to as few cron windows as
// possible. Shared by the two exports to Karpenter's UTC-only windows: shifting a window from
// a fixed-offset zone, and complementing an allow window.
import { formatValues, type CronFields } from './cron-fields.js';
import { fixedOffsetMs } from './window-zone.js';

export const WEEK_MINUTES = 7 * 1440;

/** One Karpenter-style window: evaluated in UTC. */
export interface DenyWindow {
  cron: string;
  durationSeconds: number;
}

export type DenyWindows = { ok: true; windows: DenyWindow[] } | { ok: false; reason: string };

export const mod = (a: number, n: number): number => ((a % n) + n) % n;

/** The days of week a schedule fires on when it repeats every week, or why it does not. */
export function weekdays(f: CronFields): number[] | string {
  const notWeekly = 'the schedule restricts days of the month, so it does not repeat every week';
  if (!f.month.star && f.month.values.length < 12)
    return 'the schedule restricts months, so it does not repeat every week';
  const everyDom = f.dom.values.length === 31;
  if (f.dom.star || f.dow.star) return everyDom ? f.dow.values : notWeekly;
  // Both restricted: robfig fires when either matches.
  if (everyDom || f.dow.values.length === 7) return [0, 1, 2, 3, 4, 5, 6];
  return notWeekly;
}

/** The zone's one UTC offset in whole minutes, or why Karpenter's UTC windows cannot follow it. */
export function fixedOffsetMinutes(zone: string): number | string {
  const offsetMs = fixedOffsetMs(zone);
  if (offsetMs === null)
    return (
      `time zone \`${zone}\` observes daylight saving time (or changes its UTC offset), which ` +
      `Karpenter's UTC-only windows cannot follow`
    );
  if (offsetMs % 60_000 !== 0) return `time zone \`${zone}\` has an offset that is not whole minutes`;
  return offsetMs / 60_000;
}

/**
 * UTC minutes of the week (0 = Sunday 00:00) at which the schedule fires, for a local zone `offsetMinutes` ahead of
 * UTC.
 */
export function startMinutes(f: CronFields, days: readonly number[], offsetMinutes: number): number[] {
  const starts = new Set<number>();
  for (const d of days) {
    for (const h of f.hour.values)
      for (const m of f.minute.values) starts.add(mod(d * 1440 + h * 60 + m - offsetMinutes, WEEK_MINUTES));
  }
  return [...starts].sort((a, b) => a - b);
}

const field = (values: number[], size: number): string => (values.length === size ? '*' : formatValues(values));

/**
 * Windows `[start, start + durationSeconds)` (start in UTC minutes of the week) as few crons:
 * windows of one duration at the same hour and minute share a day list, then those with the
 * same days share an hour list, then a minute list. Each step is exact: every combination a
 * resulting cron lists is one of the inputs.
 */
export function groupWindows(windows: ReadonlyArray<{ start: number; durationSeconds: number }>): DenyWindow[] {
  type Item = { days: number[]; hours: number[]; minutes: number[]; durationSeconds: number };
  let items: Item[] = windows.map(({ start, durationSeconds }) => ({
    days: [Math.floor(start / 1440)],
    hours: [Math.floor(start / 60) % 24],
    minutes: [start % 60],
    durationSeconds,
  }));
  const merge = (key: (i: Item) => string, by: 'days' | 'hours' | 'minutes'): Item[] => {
    const map = new Map<string, Item>();
    for (const i of items) {
      const k = `${i.durationSeconds}|${key(i)}`;
      const prev = map.get(k);
      if (prev) prev[by] = [...prev[by], ...i[by]].sort((a, b) => a - b);
      else map.set(k, { ...i });
    }
    return [...map.values()];
  };
  items = merge((i) => `${i.hours}|${i.minutes}`, 'days');
  items = merge((i) => `${i.days}|${i.minutes}`, 'hours');
  items = merge((i) => `${i.days}|${i.hours}`, 'minutes');
  return items.map((i) => ({
    cron: [field(i.minutes, 60), field(i.hours, 24), '*', '*', field(i.days, 7)].join(' '),
    durationSeconds: i.durationSeconds,
  }));
}
