// SPDX-License-Identifier: Apache-2.0
// Where `now` sits relative to a window, for explain output: open since when and until when,
// or closed since when and opening when.
import type { WindowSpec } from './model.js';
import { compileWindow } from './window-compile.js';

/**
 * `active` as isWindowActive (same rule, uncached). When active: `since`/`until` bound the merged window around now
 * and `nextOpen` is the next opening after `until`. When inactive: `since` is when the last
 * window closed, `until` and `nextOpen` when the next one opens. A bound is omitted when it
 * lies more than a year from `now` or does not exist (never-firing schedules are always
 * active and have no bounds).
 */
export interface WindowStatus {
  active: boolean;
  since?: number;
  until?: number;
  nextOpen?: number;
}

const HORIZON_MS = 366 * 86_400_000;

/** The window's status at `nowMs`; throws WindowError for invalid specs. */
export function windowStatus(spec: WindowSpec, nowMs: number): WindowStatus {
  const { schedule, durationMs: d } = compileWindow(spec);
  if (schedule.neverFires) return { active: true };
  const next = schedule.robfigNext(nowMs - d);
  if (next === null) return { active: true }; // robfig's zero time
  const active = next <= nowMs;
  const status: WindowStatus = { active };
  if (!active) {
    status.until = status.nextOpen = next;
    const last = schedule.lastHitAtOrBefore(nowMs);
    if (nowMs - last <= HORIZON_MS) status.since = last + d;
    return status;
  }
  // Walk back over windows that reach the start of the current one.
  let since = next;
  for (;;) {
    if (nowMs - since > HORIZON_MS) break;
    // The earliest hit whose window reaches `since`; jumping by whole durations, not hits.
    const earlier = schedule.nextHit(since - d - 1);
    if (earlier >= since) {
      status.since = since;
      break;
    }
    since = earlier;
  }
  // And forward over windows that start before the current one ends.
  let until = next + d;
  for (;;) {
    if (until - nowMs > HORIZON_MS) return status;
    const last = schedule.lastHitAtOrBefore(until);
    if (last + d <= until) break;
    until = last + d;
  }
  status.until = until;
  const reopen = schedule.nextHit(until);
  if (reopen - nowMs <= HORIZON_MS) status.nextOpen = reopen;
  return status;
}
