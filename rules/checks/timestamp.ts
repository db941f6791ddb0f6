// SPDX-License-Identifier: Apache-2.0
// Freeze timestamps: `YYYY-MM-DD HH:MM[:SS]` as wall time in a zone, or RFC 3339 with `Z` or
// an offset (then the zone is irrelevant).
import { isValidWallTime, wallTimeToEpochMs, type WallTime } from '../zoned-time.js';

const WALL = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Epoch ms, or undefined when the text is not a date-time (or the zone is unusable). */
export function parseTimestamp(text: string, zone: string): number | undefined {
  const rfc = RFC3339.exec(text);
  if (rfc) {
    const wall = wallOf(rfc);
    if (!isValidWallTime(wall) || !isValidOffset(rfc[8]!)) return undefined;
    const fraction = rfc[7] ? Math.round(Number(rfc[7]) * 1000) : 0;
    return (
      Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second) + fraction - offsetMs(rfc[8])
    );
  }
  const m = WALL.exec(text);
  if (!m) return undefined;
  const wall = wallOf(m);
  if (!isValidWallTime(wall)) return undefined;
  try {
    return wallTimeToEpochMs(wall, zone);
  } catch {
    return undefined;
  }
}

function wallOf(m: RegExpExecArray): WallTime {
  return {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4]),
    minute: Number(m[5]),
    second: m[6] ? Number(m[6]) : 0,
  };
}

/** RFC 3339's `time-numoffset`: hours 00-23, minutes 00-59 (`+99:99` would move the instant by days). */
function isValidOffset(offset: string): boolean {
  if (offset === 'Z' || offset === 'z') return true;
  return Number(offset.slice(1, 3)) <= 23 && Number(offset.slice(4, 6)) <= 59;
}

function offsetMs(offset: string): number {
  if (offset === 'Z' || offset === 'z') return 0;
  const sign = offset[0] === '-' ? -1 : 1;
  return sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6))) * 60_000;
}
