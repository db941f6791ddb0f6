// SPDX-License-Identifier: Apache-2.0
// Static facts about a window, for lints: does it never open, is it open all the time.
import type { WindowSpec } from './model.js';
import { cronFields, dayMatches } from './cron.js';
import { compileWindow } from './window-compile.js';
import { zoneOffsetRange } from './window-zone.js';
import { memoByText } from './memo.js';

const DAY_MS = 86_400_000;
const CYCLE_FROM = Date.UTC(2000, 0, 1);
// Dates repeat their weekdays every 28 years between 1901 and 2099.
const CYCLE_DAYS = (Date.UTC(2028, 0, 1) - CYCLE_FROM) / DAY_MS;

/**
 * True when the window is never active: a zero duration on a schedule that fires. (A schedule
 * that never fires is always active in Karpenter, whatever the duration.) Throws WindowError
 * for invalid specs.
 */
export function windowNeverOpens(spec: WindowSpec): boolean {
  const { schedule, durationMs } = compileWindow(spec);
  return durationMs === 0 && !schedule.neverFires;
}

/**
 * True when the window is active at every instant: the schedule never fires, or the duration
 * covers the longest gap between consecutive hits. The gap is measured in wall-clock time over
 * one 28-year calendar cycle (every weekday/leap-year alignment; the skipped leap day of 2100
 * is ignored). For a zone whose offset varies, the largest offset change is added to that gap,
 * so the answer is exact for UTC and fixed-offset zones and errs towards false around DST.
 * Throws WindowError for invalid specs.
 */
export function scheduleAlwaysActive(spec: WindowSpec): boolean {
  const { schedule, durationMs } = compileWindow(spec);
  if (schedule.neverFires) return true;
  if (durationMs === 0) return false;
  const gap = longestWallGapMs(schedule.cron);
  // The offset range (max - min ≥ 0) costs thousands of Intl calls per zone: only asked for
  // when the duration covers the wall-clock gap, i.e. when it can change the answer.
  if (durationMs < gap) return false;
  const { min, max } = zoneOffsetRange(spec.timeZone);
  return durationMs >= gap + (max - min);
}

// Remembered per schedule text, bounded like the checker's other caches: a controller or
// editor that checks ever new schedules must not keep every one of them.
const longestWallGapMs = memoByText(wallGapMs);

function wallGapMs(cron: string): number {
  const f = cronFields(cron);
  const minutesOfDay = f.hour.values.flatMap((h) => f.minute.values.map((m) => h * 60 + m));
  let longest = 0;
  for (let i = 1; i < minutesOfDay.length; i++) longest = Math.max(longest, minutesOfDay[i] - minutesOfDay[i - 1]);
  const firingDays: number[] = [];
  for (let day = 0; day < CYCLE_DAYS; day++) {
    const date = new Date(CYCLE_FROM + day * DAY_MS);
    if (f.month.values.includes(date.getUTCMonth() + 1) && dayMatches(f, date.getUTCDate(), date.getUTCDay()))
      firingDays.push(day);
  }
  firingDays.push(firingDays[0] + CYCLE_DAYS); // the cycle repeats
  const lastToFirst = minutesOfDay[0] - minutesOfDay[minutesOfDay.length - 1];
  for (let i = 1; i < firingDays.length; i++) {
    longest = Math.max(longest, (firingDays[i] - firingDays[i - 1]) * 1440 + lastToFirst);
  }
  return longest * 60_000;
}
