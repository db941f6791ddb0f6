// SPDX-License-Identifier: Apache-2.0
// Budget windows: Karpenter's `Budget.IsActive` generalised to an IANA zone.
//
// A window is active at `now` iff robfig's `Next(now − duration)` is not after `now`, i.e. on
// `[hit, hit + duration)` for every schedule hit, windows merging where they overlap. Hits are
// wall-clock times in `spec.timeZone`; durations are elapsed time (Go's `time.Add`), so a 4h
// window opened at 01:00 on a DST day lasts four real hours whatever the clocks say.
// DST (robfig differs here; Karpenter itself only uses UTC) is window-walk's: a wall time
// skipped by spring-forward fires moved later by the gap (`0 2 * * *` in Europe/Berlin fires at
// 03:00 CEST that day, as cron-parser does), a wall time repeated by fall-back fires once, at
// its first occurrence, unless the hour field is `*` (then at both, so `@hourly` keeps firing
// every real hour).
// Two Karpenter edge cases are kept: a schedule with no hit at all (`0 0 30 2 *`) is always
// active (robfig returns the zero time), also with a zero duration; and robfig's five-year
// search limit makes leap-day-only schedules always active for the years before a skipped
// leap day (e.g. `0 0 29 2 *` from 2096-02-29 through 2098).
import type { WindowSpec } from './model.js';
import { compileWindow } from './window-compile.js';

export { WindowError, compileWindow, type CompiledWindow } from './window-compile.js';
export { isKnownTimeZone } from './window-zone.js';
export { scheduleAlwaysActive, windowNeverOpens } from './window-analysis.js';
export { windowStatus, type WindowStatus } from './window-status.js';

/**
 * Karpenter's Budget.IsActive generalised to a time zone; throws WindowError for invalid specs.
 * Repeated calls for the same spec answer from a cached interval over which the answer cannot
 * change (the current window, or the gap up to the next hit), so sparse schedules cost one
 * calendar walk per window, not per call.
 */
export function isWindowActive(spec: WindowSpec, nowMs: number): boolean {
  const w = compileWindow(spec);
  const memo = w.memo;
  if (memo && memo.fromMs <= nowMs && nowMs < memo.toMs) return memo.active;
  const { schedule, durationMs } = w;
  if (schedule.neverFires) {
    w.memo = { fromMs: -Infinity, toMs: Infinity, active: true };
    return true;
  }
  const next = schedule.robfigNext(nowMs - durationMs);
  if (next === null) return true; // robfig's zero time: rare, not worth caching
  if (next <= nowMs) {
    w.memo = { fromMs: next, toMs: next + durationMs, active: true };
    return true;
  }
  // No hit in (now − duration, next): inactive until `next` opens the next window.
  w.memo = { fromMs: nowMs, toMs: next, active: false };
  return false;
}

/**
 * The half-open intervals [start, end) in epoch ms during which the window is active, clipped
 * to [fromMs, toMs), sorted and merged (touching intervals join). Agrees with isWindowActive
 * at every instant; throws WindowError for invalid specs.
 */
export function activeIntervals(spec: WindowSpec, fromMs: number, toMs: number): Array<[number, number]> {
  const { schedule, durationMs: d } = compileWindow(spec);
  if (!(fromMs < toMs)) return [];
  if (schedule.neverFires) return [[fromMs, toMs]];
  if (d === 0 && !schedule.sparse) return [];
  const raw: Array<[number, number]> = [];
  let checkpoint = fromMs - d; // hits after this can open a window reaching fromMs
  for (;;) {
    const hit = schedule.nextHit(checkpoint);
    const nullEnd = schedule.nullCheckpointsEnd(checkpoint, hit);
    if (nullEnd > checkpoint) raw.push([checkpoint + d, nullEnd + d]);
    if (hit >= toMs) break;
    let end = hit + d;
    let last = hit;
    // Jump to the last hit inside the window instead of visiting every hit it covers.
    while (d > 0 && end < toMs) {
      const p = schedule.lastHitAtOrBefore(end);
      if (p + d <= end) break;
      last = p;
      end = p + d;
    }
    if (d > 0) raw.push([hit, end]);
    if (end >= toMs) break;
    checkpoint = Math.max(last, end - d);
  }
  return mergeClip(raw, fromMs, toMs);
}

function mergeClip(raw: Array<[number, number]>, fromMs: number, toMs: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [a0, b0] of raw.sort((x, y) => x[0] - y[0])) {
    const a = Math.max(a0, fromMs);
    const b = Math.min(b0, toMs);
    if (a >= b) continue;
    const prev = out[out.length - 1];
    if (prev && a <= prev[1]) prev[1] = Math.max(prev[1], b);
    else out.push([a, b]);
  }
  return out;
}
