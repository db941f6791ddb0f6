// SPDX-License-Identifier: Apache-2.0
// The few time-zone facts windows need, read from Intl only (this runs in a browser worker
// too): is a zone known, its UTC offset at an instant, and the local calendar year.

const formatters = new Map<string, Intl.DateTimeFormat>();
const known = new Map<string, boolean>();

/** True when the runtime's zone database knows `zone`; `UTC` always is. */
export function isKnownTimeZone(zone: string): boolean {
  if (zone === 'UTC') return true;
  let ok = known.get(zone);
  if (ok === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      ok = zone.trim() !== '';
    } catch {
      ok = false;
    }
    known.set(zone, ok);
  }
  return ok;
}

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** Local wall-clock fields of `epochMs` in `zone` (month 1-12, astronomical year numbering). */
export function zonedFields(
  epochMs: number,
  zone: string,
): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const p: Record<string, string> = {};
  for (const part of formatter(zone).formatToParts(new Date(epochMs))) p[part.type] = part.value;
  const year = p.era === 'BC' || p.era === 'B' ? 1 - Number(p.year) : Number(p.year);
  return {
    year,
    month: Number(p.month),
    day: Number(p.day),
    hour: Number(p.hour),
    minute: Number(p.minute),
    second: Number(p.second),
  };
}

/** The zone's UTC offset in milliseconds at `epochMs` (local = UTC + offset). */
export function zoneOffsetMs(epochMs: number, zone: string): number {
  const f = zonedFields(epochMs, zone);
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
  const asUtc = new Date(Date.UTC(2000, f.month - 1, f.day, f.hour, f.minute, f.second)).setUTCFullYear(f.year);
  return asUtc - Math.floor(epochMs / 1000) * 1000;
}

/** The local calendar year of `epochMs` in `zone`. */
export function zonedYear(epochMs: number, zone: string): number {
  return zonedFields(epochMs, zone).year;
}

/** The instant local midnight of January 1st of `year` occurs in `zone`. */
export function zonedYearStart(year: number, zone: string): number {
  const wall = new Date(Date.UTC(2000, 0, 1)).setUTCFullYear(year);
  let t = wall - zoneOffsetMs(wall, zone);
  // A second pass settles offsets that differ between the guess and the answer.
  t = wall - zoneOffsetMs(t, zone);
  return t;
}

const offsetRanges = new Map<string, { min: number; max: number }>();
const SAMPLE_FROM = Date.UTC(2020, 0, 1);
const SAMPLE_TO = Date.UTC(2040, 0, 1);
const HALF_DAY_MS = 43_200_000;

/**
 * The smallest and largest UTC offset (ms) `zone` uses from 2020 through 2039, sampled twice
 * a day; cached. Earlier history (e.g. a 1945 offset change) is deliberately ignored.
 */
export function zoneOffsetRange(zone: string): { min: number; max: number } {
  let range = offsetRanges.get(zone);
  if (!range) {
    range = { min: Infinity, max: -Infinity };
    for (let t = SAMPLE_FROM; t < SAMPLE_TO; t += HALF_DAY_MS) {
      const offset = zoneOffsetMs(t, zone);
      range.min = Math.min(range.min, offset);
      range.max = Math.max(range.max, offset);
    }
    offsetRanges.set(zone, range);
  }
  return range;
}

/**
 * The zone's offset in ms when it is the same throughout 2020–2039, otherwise null: the zone
 * observes daylight saving time or changes its offset within that span.
 */
export function fixedOffsetMs(zone: string): number | null {
  if (zone === 'UTC') return 0;
  const { min, max } = zoneOffsetRange(zone);
  return min === max ? min : null;
}
