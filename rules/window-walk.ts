// SPDX-License-Identifier: Apache-2.0
// Walks the wall-clock calendar of one zone to find schedule hits as instants.
//
// DST rules (cron-parser's where it is consistent, Vixie cron's otherwise):
// - a wall time skipped by a forward shift fires as if the shift had not happened yet, i.e.
//   moved later by the gap (`0 2` → 03:00, `30 2` → 03:30 in Europe/Berlin); hits that land
//   on the same instant count once;
// - a wall time repeated by a backward shift fires once, at its first occurrence, unless the
//   hour field is `*`: such schedules follow the real clock and fire at both occurrences, so
//   `@hourly` keeps firing every real hour.
import type { CronFields } from './cron-fields.js';
import { zoneOffsetMs } from './window-zone.js';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const SEARCH_DAYS = 12 * 366; // beyond any gap a schedule that fires can have (8 years)

/** Hits of a firing schedule in one zone; both directions agree by construction. */
export interface HitWalker {
  /** First hit strictly after `ms`. */
  nextHit(ms: number): number;
  /** Last hit at or before `ms`. */
  lastHitAtOrBefore(ms: number): number;
}

/** A walker over `fields` in `zone`; the schedule must fire (see cronNeverFires). */
export function hitWalker(fields: CronFields, zone: string): HitWalker {
  // Minutes after local midnight at which the schedule fires, ascending.
  const times = fields.hour.values.flatMap((h) => fields.minute.values.map((m) => (h * 60 + m) * MINUTE_MS));
  const months = new Set(fields.month.values);
  const doms = new Set(fields.dom.values);
  const dows = new Set(fields.dow.values);
  const and = fields.dom.star || fields.dow.star;
  const bothOccurrences = fields.hour.star;
  const transitionDays = new Map<number, number[]>();
  const steadyOffsets = new Map<number, number>();

  /** Whether the local date starting at wall-clock `dayStart` (as if UTC) fires at all. */
  const dayFires = (dayStart: number): boolean => {
    const d = new Date(dayStart);
    if (!months.has(d.getUTCMonth() + 1)) return false;
    const domOk = doms.has(d.getUTCDate());
    const dowOk = dows.has(d.getUTCDay());
    return and ? domOk && dowOk : domOk || dowOk;
  };

  /** The instants of wall time `wall` (as if UTC): one, two (repeated) or the shifted one (skipped). */
  const instantsOf = (wall: number): number[] => {
    const before = zoneOffsetMs(wall - DAY_MS, zone);
    const after = zoneOffsetMs(wall + DAY_MS, zone);
    const real = [...new Set([wall - before, wall - after])]
      .filter((t) => t + zoneOffsetMs(t, zone) === wall)
      .sort((a, b) => a - b);
    if (real.length === 0) return [wall - before];
    return bothOccurrences ? real : [real[0]];
  };

  /** The day's single offset, or its sorted unique hit instants when the offset changes that day. */
  const hitsOfDay = (dayStart: number): { offset: number } | { hits: number[] } => {
    let offset = steadyOffsets.get(dayStart);
    if (offset !== undefined) return { offset };
    offset = zoneOffsetMs(dayStart - DAY_MS, zone);
    if (offset === zoneOffsetMs(dayStart + 2 * DAY_MS, zone)) {
      if (steadyOffsets.size > 1024) steadyOffsets.clear();
      steadyOffsets.set(dayStart, offset);
      return { offset };
    }
    let hits = transitionDays.get(dayStart);
    if (!hits) {
      if (transitionDays.size > 64) transitionDays.clear();
      hits = [...new Set(times.flatMap((t) => instantsOf(dayStart + t)))].sort((a, b) => a - b);
      transitionDays.set(dayStart, hits);
    }
    return { hits };
  };

  const firstAfter = (dayStart: number, ms: number): number | undefined => {
    const day = hitsOfDay(dayStart);
    if ('hits' in day) return day.hits.find((h) => h > ms);
    const since = ms + day.offset - dayStart; // wall-clock ms into this day
    const t = times.find((x) => x > since);
    return t === undefined ? undefined : dayStart + t - day.offset;
  };

  const lastAtOrBefore = (dayStart: number, ms: number): number | undefined => {
    const day = hitsOfDay(dayStart);
    if ('hits' in day) return lastOf(day.hits, (h) => h <= ms);
    const since = ms + day.offset - dayStart;
    const t = lastOf(times, (x) => x <= since);
    return t === undefined ? undefined : dayStart + t - day.offset;
  };

  const localDayStart = (ms: number): number => {
    const wall = ms + zoneOffsetMs(ms, zone);
    return Math.floor(wall / DAY_MS) * DAY_MS;
  };

  return {
    nextHit(ms) {
      // Start a day early: a skipped time late on the previous day can land after `ms`.
      const first = localDayStart(ms) - DAY_MS;
      for (let i = 0; i < SEARCH_DAYS; i++) {
        const dayStart = first + i * DAY_MS;
        const hit = dayFires(dayStart) ? firstAfter(dayStart, ms) : undefined;
        if (hit !== undefined) return hit;
      }
      throw new Error(`no hit within ${SEARCH_DAYS} days after ${new Date(ms).toISOString()}`);
    },
    lastHitAtOrBefore(ms) {
      const first = localDayStart(ms) + DAY_MS;
      for (let i = 0; i < SEARCH_DAYS; i++) {
        const dayStart = first - i * DAY_MS;
        const hit = dayFires(dayStart) ? lastAtOrBefore(dayStart, ms) : undefined;
        if (hit !== undefined) return hit;
      }
      throw new Error(`no hit within ${SEARCH_DAYS} days before ${new Date(ms).toISOString()}`);
    },
  };
}

function lastOf(sorted: number[], ok: (x: number) => boolean): number | undefined {
  for (let i = sorted.length - 1; i >= 0; i--) if (ok(sorted[i])) return sorted[i];
  return undefined;
}
