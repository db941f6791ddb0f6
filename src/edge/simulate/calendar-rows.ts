// SPDX-License-Identifier: Apache-2.0
// Builds the calendar rows of a Timeline from its samples: for each NodePool and reason, the
// share of each local weekday-hour (Monday first) in which the reason was allowed (> 0 or
// unlimited). Time is split on a 15-minute UTC grid so that every slice falls inside one local
// hour in every zone, including the :30 and :45 offsets.
import { zonedFields } from '../../../rules/window-zone.js';
import type { Reason } from '../../../rules/model.js';
import type { CalendarRow, Sample } from './timeline.js';
import { ownValue } from '../../core/cluster/own-keys.js';

const SLICE = 15 * 60_000;

/** Monday-first weekday × 24 + local hour. */
export function weekHourCell(epochMs: number, timeZone: string): number {
  const f = zonedFields(epochMs, timeZone);
  const sundayFirst = new Date(Date.UTC(2000, f.month - 1, f.day)).setUTCFullYear(f.year);
  const weekday = (new Date(sundayFirst).getUTCDay() + 6) % 7;
  return weekday * 24 + f.hour;
}

/**
 * One row per NodePool and reason seen in the samples. Each sample holds until the next one;
 * the last holds for `lastMs` (default: the gap before it). `timeZones` maps NodePool → IANA
 * zone of its policy; pools not listed use UTC.
 */
export function calendarFromSamples(
  samples: readonly Sample[],
  timeZones: Record<string, string>,
  lastMs?: number,
): CalendarRow[] {
  const rows = new Map<string, { row: CalendarRow; allowed: number[]; seen: number[] }>();
  const zoneCells = new Map<string, Map<number, number>>(); // zone → slice start → cell
  const cellOf = (t: number, zone: string): number => {
    let m = zoneCells.get(zone);
    if (!m) zoneCells.set(zone, (m = new Map()));
    let c = m.get(t);
    if (c === undefined) m.set(t, (c = weekHourCell(t, zone)));
    return c;
  };
  samples.forEach((s, i) => {
    const end =
      i + 1 < samples.length ? samples[i + 1].at : s.at + (lastMs ?? (i > 0 ? s.at - samples[i - 1].at : SLICE));
    for (const [pool, byReason] of Object.entries(s.allowed)) {
      const zone = ownValue(timeZones, pool) ?? 'UTC';
      for (const [reason, value] of Object.entries(byReason) as [Reason, number | null | undefined][]) {
        if (value === undefined) continue;
        const key = `${pool}\u0000${reason}`;
        let r = rows.get(key);
        if (!r)
          rows.set(
            key,
            (r = {
              row: { nodePool: pool, reason, timeZone: zone, hours: [] },
              allowed: new Array(168).fill(0),
              seen: new Array(168).fill(0),
            }),
          );
        const allowed = value === null || value > 0;
        for (let t = s.at; t < end;) {
          const next = Math.min(end, Math.floor(t / SLICE) * SLICE + SLICE);
          const c = cellOf(Math.floor(t / SLICE) * SLICE, zone);
          r.seen[c] += next - t;
          if (allowed) r.allowed[c] += next - t;
          t = next;
        }
      }
    }
  });
  return [...rows.values()].map(({ row, allowed, seen }) => ({
    ...row,
    hours: allowed.map((a, i) => (seen[i] > 0 ? a / seen[i] : 0)),
  }));
}
