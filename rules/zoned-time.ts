// SPDX-License-Identifier: Apache-2.0
// Wall-clock time in an IANA zone → epoch milliseconds, DST-correct, using only Intl (no
// `node:` modules: the checker also runs in the editor's web worker).
import { zoneOffsetMs } from './window-zone.js';

/** A local date and time as written, e.g. `2026-12-20 00:00` (month 1-12). */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export { zoneOffsetMs };

/** True when `w` names a real calendar date and a time within 00:00:00–23:59:59. */
export function isValidWallTime(w: WallTime): boolean {
  if (w.month < 1 || w.month > 12 || w.day < 1 || w.hour > 23 || w.minute > 59 || w.second > 59) return false;
  const daysInMonth = new Date(Date.UTC(w.year, w.month, 0)).getUTCDate();
  return w.day <= daysInMonth;
}

/**
 * The instant at which clocks in `zone` show `w`. Like Temporal's `compatible` disambiguation:
 * a time repeated by a backward DST shift resolves to the earlier instant, and a time skipped
 * by a forward shift is moved forward by the length of the gap.
 */
export function wallTimeToEpochMs(w: WallTime, zone: string): number {
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  const day = 86_400_000;
  const before = zoneOffsetMs(asUtc - day, zone);
  const after = zoneOffsetMs(asUtc + day, zone);
  const candidates = [before, after]
    .map((offset) => asUtc - offset)
    .filter((t) => asUtc - zoneOffsetMs(t, zone) === t)
    .sort((a, b) => a - b);
  if (candidates.length > 0) return candidates[0];
  // In a gap: read the wall time with the offset in force before the shift.
  return asUtc - before;
}
