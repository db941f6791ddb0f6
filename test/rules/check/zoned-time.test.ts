// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../../rules/checks/timestamp.js';
import { wallTimeToEpochMs, zoneOffsetMs } from '../../../rules/zoned-time.js';

const wall = (s: string) => {
  const [d, t] = s.split(' ');
  const [year, month, day] = d.split('-').map(Number);
  const [hour, minute, second = 0] = t.split(':').map(Number);
  return { year, month, day, hour, minute, second };
};

describe('wall time in a zone', () => {
  it.each([
    ['2026-01-15 12:00', 'UTC', '2026-01-15T12:00:00.000Z'],
    ['2026-01-15 12:00', 'Europe/Berlin', '2026-01-15T11:00:00.000Z'],
    ['2026-07-15 12:00', 'Europe/Berlin', '2026-07-15T10:00:00.000Z'],
    ['2026-07-15 12:00', 'America/New_York', '2026-07-15T16:00:00.000Z'],
    ['2026-01-15 12:00', 'Asia/Kolkata', '2026-01-15T06:30:00.000Z'],
    // Spring forward in Berlin (29 Mar 2026, 02:00 → 03:00): 02:30 does not exist, moves on by the gap.
    ['2026-03-29 02:30', 'Europe/Berlin', '2026-03-29T01:30:00.000Z'],
    ['2026-03-29 03:00', 'Europe/Berlin', '2026-03-29T01:00:00.000Z'],
    // Fall back (25 Oct 2026, 03:00 → 02:00): 02:30 happens twice, the earlier one is taken.
    ['2026-10-25 02:30', 'Europe/Berlin', '2026-10-25T00:30:00.000Z'],
    ['2026-10-25 03:00', 'Europe/Berlin', '2026-10-25T02:00:00.000Z'],
    ['2026-11-01 01:30', 'America/New_York', '2026-11-01T05:30:00.000Z'],
  ])('%s in %s is %s', (text, zone, iso) => {
    expect(new Date(wallTimeToEpochMs(wall(text), zone)).toISOString()).toBe(iso);
  });

  it('knows the offset at an instant', () => {
    expect(zoneOffsetMs(Date.parse('2026-07-01T00:00:00Z'), 'Europe/Berlin')).toBe(2 * 3_600_000);
    expect(zoneOffsetMs(Date.parse('2026-07-01T00:00:00Z'), 'America/Los_Angeles')).toBe(-7 * 3_600_000);
  });
});

describe('freeze timestamps', () => {
  it.each([
    ['2026-12-20 00:00', 'UTC', '2026-12-20T00:00:00.000Z'],
    ['2026-12-20 08:30:15', 'Europe/Berlin', '2026-12-20T07:30:15.000Z'],
    ['2026-12-20T08:30:00Z', 'Europe/Berlin', '2026-12-20T08:30:00.000Z'],
    ['2026-12-20T08:30:00+05:30', 'UTC', '2026-12-20T03:00:00.000Z'],
    ['2026-12-20T08:30:00.250-01:00', 'UTC', '2026-12-20T09:30:00.250Z'],
  ])('%s in %s is %s', (text, zone, iso) => {
    expect(new Date(parseTimestamp(text, zone)!).toISOString()).toBe(iso);
  });

  it.each([
    '2026-02-29 00:00',
    '2026-13-01 00:00',
    '2026-12-20 24:00',
    '2026-12-20',
    '20 Dec 2026 10:00',
    '2026-12-20T08:30:00+0530',
    '',
  ])('%s is not a date-time', (text) => {
    expect(parseTimestamp(text, 'UTC')).toBeUndefined();
  });
});
