// SPDX-License-Identifier: Apache-2.0
// kpol "allow windows" exported to Karpenter, which only has deny-style budget windows
// evaluated in UTC: the complement of an allow window as UTC cron + duration windows.
import type { WindowSpec } from './model.js';
import { cronFields, cronNeverFires } from './cron.js';
import { WindowError, compileWindow } from './window-compile.js';
import {
  WEEK_MINUTES,
  fixedOffsetMinutes,
  groupWindows,
  startMinutes,
  weekdays,
  type DenyWindow,
  type DenyWindows,
} from './weekly-windows.js';

export type { DenyWindow, DenyWindows };

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
    return {
      ok: false,
      reason: `the duration must be whole minutes: Karpenter budget durations have only hours and minutes`,
    };
  }
  const offset = fixedOffsetMinutes(allow.timeZone);
  if (typeof offset === 'string') return { ok: false, reason: offset };
  if (cronNeverFires(compiled.schedule.cron)) return { ok: true, windows: [] }; // always active
  const f = cronFields(compiled.schedule.cron);
  const days = weekdays(f);
  if (typeof days === 'string') return { ok: false, reason: days };
  const allowed = allowedMinutesOfWeek(startMinutes(f, days, offset), allow.durationSeconds / 60);
  return {
    ok: true,
    windows: groupWindows(gapsOf(allowed).map(([start, length]) => ({ start, durationSeconds: length * 60 }))),
  };
}

/** Minute-of-week (UTC, 0 = Sunday 00:00) → allow window active. */
function allowedMinutesOfWeek(starts: readonly number[], durationMinutes: number): boolean[] {
  const allowed = new Array<boolean>(WEEK_MINUTES).fill(false);
  const span = Math.min(durationMinutes, WEEK_MINUTES);
  for (const start of starts) for (let i = 0; i < span; i++) allowed[(start + i) % WEEK_MINUTES] = true;
  return allowed;
}

/** Maximal runs of not-allowed minutes, wrapping around the end of the week: [start, length]. */
function gapsOf(allowed: boolean[]): Array<[number, number]> {
  const firstAllowed = allowed.indexOf(true);
  if (firstAllowed < 0) return [[0, WEEK_MINUTES]];
  const gaps: Array<[number, number]> = [];
  // Start scanning at an allowed minute so no gap is cut by the week boundary.
  for (let i = 0; i < WEEK_MINUTES;) {
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
