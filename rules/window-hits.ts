// SPDX-License-Identifier: Apache-2.0
// The hits of one validated schedule in one zone: window-walk does the calendar walking (and
// the DST handling), this adds robfig's "no hit within five years" rule and caches per
// schedule and zone.
import { cronFields, cronNeverFires } from './cron.js';
import { hitWalker, type HitWalker } from './window-walk.js';
import { zonedYear, zonedYearStart } from './window-zone.js';

const FOUR_YEARS_MS = 4 * 365 * 86_400_000;
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** A validated schedule bound to a known zone. Instants are epoch milliseconds. */
export interface Schedule {
  readonly cron: string;
  readonly timeZone: string;
  /** No hit on any date (Karpenter: always active). The hit methods must not be called then. */
  readonly neverFires: boolean;
  /** True when consecutive hits can be more than four years apart (leap-day-only schedules). */
  readonly sparse: boolean;
  /** First hit strictly after `ms`. */
  nextHit(ms: number): number;
  /** Last hit at or before `ms`. */
  lastHitAtOrBefore(ms: number): number;
  /**
   * robfig's `Next(checkpoint)`: the first hit strictly after `checkpointMs`, or null (robfig's
   * zero time) when that hit lies beyond the end of the local year five years after the
   * checkpoint's.
   */
  robfigNext(checkpointMs: number): number | null;
  /**
   * For checkpoints in `[fromMs, hitMs)` whose next hit is `hitMs`: the end of the part of that
   * range where `robfigNext` returns null (empty when the result is ≤ fromMs).
   */
  nullCheckpointsEnd(fromMs: number, hitMs: number): number;
}

const schedules = new Map<string, Schedule>();
const MAX_CACHED = 2000;

/** The schedule for a validated `cron` in a known `timeZone`; cached. */
export function scheduleFor(cron: string, timeZone: string): Schedule {
  const key = `${cron}\u0000${timeZone}`;
  let s = schedules.get(key);
  if (!s) {
    if (schedules.size >= MAX_CACHED) schedules.clear();
    s = build(cron, timeZone);
    schedules.set(key, s);
  }
  return s;
}

function build(cron: string, timeZone: string): Schedule {
  const neverFires = cronNeverFires(cron);
  const f = cronFields(cron);
  // Only a schedule whose every date is February 29th can skip more than four years.
  const sparse =
    !neverFires &&
    f.dow.star &&
    !f.dom.star &&
    f.dom.values.every((d) => d >= 29) &&
    f.month.values.every((m) => m === 2 || f.dom.values.every((d) => d > DAYS_IN_MONTH[m - 1]));
  let walker: HitWalker | undefined;
  const nextHit = (ms: number): number => (walker ??= hitWalker(f, timeZone)).nextHit(ms);
  const lastHitAtOrBefore = (ms: number): number => (walker ??= hitWalker(f, timeZone)).lastHitAtOrBefore(ms);
  const nullCheckpointsEnd = (fromMs: number, hitMs: number): number => {
    if (!sparse || hitMs - fromMs <= FOUR_YEARS_MS) return fromMs;
    // robfig starts at floor(checkpoint)+1s and gives up past year(start)+5.
    const limit = zonedYearStart(zonedYear(hitMs, timeZone) - 5, timeZone) - 1000;
    return Math.min(Math.max(fromMs, limit), hitMs);
  };
  return {
    cron,
    timeZone,
    neverFires,
    sparse,
    nextHit,
    lastHitAtOrBefore,
    robfigNext(checkpointMs) {
      const hit = nextHit(checkpointMs);
      return checkpointMs < nullCheckpointsEnd(checkpointMs, hit) ? null : hit;
    },
    nullCheckpointsEnd,
  };
}
