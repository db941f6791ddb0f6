// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import type { WindowSpec } from '../../../rules/model.js';
import {
  WindowError,
  activeIntervals,
  isKnownTimeZone,
  isWindowActive,
  scheduleAlwaysActive,
  windowNeverOpens,
  windowStatus,
} from '../../../rules/window.js';

const at = (iso: string): number => Date.parse(iso);
const utc = (cron: string, durationSeconds: number): WindowSpec => ({ cron, durationSeconds, timeZone: 'UTC' });
const iso = (intervals: Array<[number, number]>): string[][] =>
  intervals.map(([a, b]) => [new Date(a).toISOString(), new Date(b).toISOString()]);

describe('Budget.IsActive boundaries (KARPENTER.md#budget-windows)', () => {
  it.each([
    // @daily for 10m
    ['@daily', 600, '2025-06-10T00:00:00.000Z', true],
    ['@daily', 600, '2025-06-10T00:09:59.999Z', true],
    ['@daily', 600, '2025-06-10T00:10:00.000Z', false],
    ['@daily', 600, '2025-06-10T23:59:59.000Z', false],
    ['@daily', 600, '2025-06-09T23:59:59.999Z', false],
    // 0 9 * * mon-fri for 8h; 2025-06-09 is a Monday
    ['0 9 * * mon-fri', 28_800, '2025-06-09T08:59:59.000Z', false],
    ['0 9 * * mon-fri', 28_800, '2025-06-09T09:00:00.000Z', true],
    ['0 9 * * mon-fri', 28_800, '2025-06-09T16:59:59.000Z', true],
    ['0 9 * * mon-fri', 28_800, '2025-06-09T17:00:00.000Z', false],
    ['0 9 * * mon-fri', 28_800, '2025-06-14T09:00:00.000Z', false],
    ['0 9 * * mon-fri', 28_800, '2025-06-14T12:00:00.000Z', false],
    ['0 9 * * mon-fri', 28_800, '2025-06-15T10:00:00.000Z', false],
    // longer than the period: always active
    ['@daily', 172_800, '2025-06-10T12:34:56.789Z', true],
    ['@daily', 172_800, '2025-06-10T00:00:00.000Z', true],
    ['@hourly', 3600, '2025-06-10T12:59:59.999Z', true],
    ['@hourly', 3600, '2025-06-10T13:00:00.000Z', true],
    // 0m: never active
    ['@daily', 0, '2025-06-10T00:00:00.000Z', false],
    ['* * * * *', 0, '2025-06-10T00:00:00.000Z', false],
    // never fires (Feb 30, Apr 31): robfig's zero time, always active — even for 0m
    ['0 0 30 2 *', 600, '2025-06-10T00:00:00.000Z', true],
    ['0 0 31 4 *', 600, '2025-04-30T12:00:00.000Z', true],
    ['0 0 30 2 *', 0, '2025-06-10T00:00:00.000Z', true],
  ])('%s for %is at %s → %s', (cron, seconds, when, active) => {
    expect(isWindowActive(utc(cron, seconds), at(when))).toBe(active);
  });

  it('ignores the host zone: UTC schedules are UTC', () => {
    expect(isWindowActive({ cron: '@daily', durationSeconds: 600, timeZone: 'UTC' }, at('2025-06-10T00:05:00Z'))).toBe(
      true,
    );
  });
});

describe('invalid windows throw WindowError (callers fail closed)', () => {
  it.each([
    ['@dailyfoo', 'unrecognized descriptor: @dailyfoo'],
    ['* * * * * *', 'expected exactly 5 fields, found 6'],
    ['TZ=Europe/Berlin 0 0 * * *', 'expected exactly 5 fields, found 6'],
    ['a b c d e', 'failed to parse int from a'],
    ['0 0 * * tue-mon', 'beginning of range (2) beyond end of range (1)'],
    ['0 0 * * 7', 'end of range (7) above maximum (6)'],
  ])('%j → %s', (cron, message) => {
    const spec = utc(cron, 600);
    expect(() => isWindowActive(spec, 0)).toThrow(WindowError);
    expect(() => isWindowActive(spec, 0)).toThrow(message);
    expect(() => activeIntervals(spec, 0, 1)).toThrow(WindowError);
  });

  it('throws for spec.error, unknown zones and bad durations', () => {
    expect(() => isWindowActive({ ...utc('@daily', 60), error: 'broken budget' }, 0)).toThrow('broken budget');
    expect(() => isWindowActive({ cron: '@daily', durationSeconds: 60, timeZone: 'Mars/Olympus_Mons' }, 0)).toThrow(
      'unknown time zone `Mars/Olympus_Mons`',
    );
    expect(() => isWindowActive(utc('@daily', -1), 0)).toThrow(WindowError);
    expect(() => isWindowActive(utc('@daily', Number.NaN), 0)).toThrow(WindowError);
  });

  it('isKnownTimeZone', () => {
    expect(isKnownTimeZone('UTC')).toBe(true);
    expect(isKnownTimeZone('Europe/Berlin')).toBe(true);
    expect(isKnownTimeZone('Asia/Kolkata')).toBe(true);
    expect(isKnownTimeZone('Europe/Berln')).toBe(false);
    expect(isKnownTimeZone('')).toBe(false);
  });
});

describe('time zones and DST', () => {
  const berlin = (cron: string, seconds: number): WindowSpec => ({
    cron,
    durationSeconds: seconds,
    timeZone: 'Europe/Berlin',
  });
  const newYork = (cron: string, seconds: number): WindowSpec => ({
    cron,
    durationSeconds: seconds,
    timeZone: 'America/New_York',
  });

  it.each([
    // Weekdays 09:00-17:00 Berlin time, the week before (CET, UTC+1) and after (CEST, UTC+2) 2025-03-30.
    ['2025-03-28T07:59:59Z', false],
    ['2025-03-28T08:00:00Z', true],
    ['2025-03-28T15:59:59Z', true],
    ['2025-03-28T16:00:00Z', false],
    ['2025-03-31T06:59:59Z', false],
    ['2025-03-31T07:00:00Z', true],
    ['2025-03-31T14:59:59Z', true],
    ['2025-03-31T15:00:00Z', false],
    // Autumn: back to CET after 2025-10-26.
    ['2025-10-24T07:00:00Z', true],
    ['2025-10-24T15:00:00Z', false],
    ['2025-10-27T07:59:59Z', false],
    ['2025-10-27T08:00:00Z', true],
    ['2025-10-27T16:00:00Z', false],
  ])('Europe/Berlin 0 9 * * mon-fri 8h at %s → %s', (when, active) => {
    expect(isWindowActive(berlin('0 9 * * mon-fri', 28_800), at(when))).toBe(active);
  });

  it.each([
    // New York switches on 2025-03-09 (EST→EDT) and 2025-11-02 (EDT→EST).
    ['2025-03-07T13:59:59Z', false],
    ['2025-03-07T14:00:00Z', true],
    ['2025-03-07T14:59:59Z', true],
    ['2025-03-10T12:59:59Z', false],
    ['2025-03-10T13:00:00Z', true],
    ['2025-03-10T13:59:59Z', true],
    ['2025-03-10T14:00:00Z', false],
    ['2025-10-31T13:00:00Z', true],
    ['2025-11-03T13:00:00Z', false],
    ['2025-11-03T14:00:00Z', true],
  ])('America/New_York 0 9 * * * 1h at %s → %s', (when, active) => {
    expect(isWindowActive(newYork('0 9 * * *', 3600), at(when))).toBe(active);
  });

  it('a wall time skipped by spring-forward fires when the clocks land (cron-parser behaviour)', () => {
    // Berlin 2025-03-30: 02:00 CET jumps to 03:00 CEST; `0 2 * * *` fires at 03:00 CEST = 01:00Z.
    expect(iso(activeIntervals(berlin('0 2 * * *', 3600), at('2025-03-29T00:00Z'), at('2025-04-01T00:00Z')))).toEqual([
      ['2025-03-29T01:00:00.000Z', '2025-03-29T02:00:00.000Z'],
      ['2025-03-30T01:00:00.000Z', '2025-03-30T02:00:00.000Z'],
      ['2025-03-31T00:00:00.000Z', '2025-03-31T01:00:00.000Z'],
    ]);
    // New York 2025-03-09: 02:30 does not exist; fires at 03:30 EDT = 07:30Z.
    expect(iso(activeIntervals(newYork('30 2 * * *', 600), at('2025-03-09T00:00Z'), at('2025-03-10T00:00Z')))).toEqual([
      ['2025-03-09T07:30:00.000Z', '2025-03-09T07:40:00.000Z'],
    ]);
  });

  it('a wall time repeated by fall-back fires once, at its first occurrence', () => {
    // Berlin 2025-10-26: 02:30 happens at 00:30Z (CEST) and again at 01:30Z (CET).
    expect(iso(activeIntervals(berlin('30 2 * * *', 600), at('2025-10-26T00:00Z'), at('2025-10-26T12:00Z')))).toEqual([
      ['2025-10-26T00:30:00.000Z', '2025-10-26T00:40:00.000Z'],
    ]);
    // New York 2025-11-02: 01:30 EDT = 05:30Z; not again at 01:30 EST = 06:30Z.
    expect(iso(activeIntervals(newYork('30 1 * * *', 600), at('2025-11-02T00:00Z'), at('2025-11-03T00:00Z')))).toEqual([
      ['2025-11-02T05:30:00.000Z', '2025-11-02T05:40:00.000Z'],
    ]);
  });

  it('durations are elapsed time: a 4h window from 01:00 lasts four real hours on DST days', () => {
    // Spring: 01:00 CET = 00:00Z, closes 04:00Z (06:00 CEST on the wall).
    expect(iso(activeIntervals(berlin('0 1 * * *', 14_400), at('2025-03-30T00:00Z'), at('2025-03-30T12:00Z')))).toEqual(
      [['2025-03-30T00:00:00.000Z', '2025-03-30T04:00:00.000Z']],
    );
    // Autumn: 01:00 CEST = 23:00Z the day before, closes 03:00Z (04:00 CET on the wall).
    expect(iso(activeIntervals(berlin('0 1 * * *', 14_400), at('2025-10-25T12:00Z'), at('2025-10-26T12:00Z')))).toEqual(
      [['2025-10-25T23:00:00.000Z', '2025-10-26T03:00:00.000Z']],
    );
    expect(isWindowActive(berlin('0 1 * * *', 14_400), at('2025-10-26T02:59:59Z'))).toBe(true);
    expect(isWindowActive(berlin('0 1 * * *', 14_400), at('2025-10-26T03:00:00Z'))).toBe(false);
  });

  it('fixed-offset zones shift the whole schedule (Asia/Kolkata, UTC+05:30)', () => {
    const spec: WindowSpec = { cron: '0 9 * * mon-fri', durationSeconds: 3600, timeZone: 'Asia/Kolkata' };
    expect(isWindowActive(spec, at('2025-06-09T03:29:59Z'))).toBe(false);
    expect(isWindowActive(spec, at('2025-06-09T03:30:00Z'))).toBe(true);
    expect(isWindowActive(spec, at('2025-06-09T04:30:00Z'))).toBe(false);
  });
});

describe('activeIntervals', () => {
  it('merges overlapping and touching windows and clips to the range', () => {
    expect(iso(activeIntervals(utc('0 */2 * * *', 7200), at('2025-06-10T01:00Z'), at('2025-06-10T05:00Z')))).toEqual([
      ['2025-06-10T01:00:00.000Z', '2025-06-10T05:00:00.000Z'],
    ]);
    expect(iso(activeIntervals(utc('0,30 9 * * *', 3600), at('2025-06-10T00:00Z'), at('2025-06-11T00:00Z')))).toEqual([
      ['2025-06-10T09:00:00.000Z', '2025-06-10T10:30:00.000Z'],
    ]);
    expect(iso(activeIntervals(utc('@daily', 600), at('2025-06-10T00:05Z'), at('2025-06-11T00:05Z')))).toEqual([
      ['2025-06-10T00:05:00.000Z', '2025-06-10T00:10:00.000Z'],
      ['2025-06-11T00:00:00.000Z', '2025-06-11T00:05:00.000Z'],
    ]);
  });

  it('is whole or empty for the degenerate cases', () => {
    expect(activeIntervals(utc('0 0 30 2 *', 600), 1000, 5000)).toEqual([[1000, 5000]]);
    expect(activeIntervals(utc('* * * * *', 0), 0, 86_400_000)).toEqual([]);
    expect(activeIntervals(utc('@daily', 600), 5000, 5000)).toEqual([]);
  });

  it("keeps robfig's five-year search limit for leap-day schedules", () => {
    // 2100 has no February 29th. A checkpoint in 2096-2098 finds the next hit (2104) beyond
    // its five-year search limit, gets robfig's zero time and so counts as active.
    const spec = utc('0 0 29 2 *', 60);
    expect(iso(activeIntervals(spec, at('2095-01-01T00:00Z'), at('2105-01-01T00:00Z')))).toEqual([
      ['2096-02-29T00:00:00.000Z', '2099-01-01T00:00:59.000Z'],
      ['2104-02-29T00:00:00.000Z', '2104-02-29T00:01:00.000Z'],
    ]);
    expect(isWindowActive(spec, at('2097-06-01T00:00Z'))).toBe(true);
    expect(isWindowActive(spec, at('2099-06-01T00:00Z'))).toBe(false);
    expect(isWindowActive(spec, at('2025-06-01T00:00Z'))).toBe(false);
  });
});

describe('windowStatus', () => {
  it('reports the surrounding window', () => {
    const spec = utc('0 9 * * mon-fri', 28_800);
    expect(windowStatus(spec, at('2025-06-09T12:00Z'))).toEqual({
      active: true,
      since: at('2025-06-09T09:00Z'),
      until: at('2025-06-09T17:00Z'),
      nextOpen: at('2025-06-10T09:00Z'),
    });
    expect(windowStatus(spec, at('2025-06-14T12:00Z'))).toEqual({
      active: false,
      since: at('2025-06-13T17:00Z'),
      until: at('2025-06-16T09:00Z'),
      nextOpen: at('2025-06-16T09:00Z'),
    });
  });

  it('follows chains of overlapping windows and omits bounds that do not exist', () => {
    expect(windowStatus(utc('0 9-11 * * *', 3600), at('2025-06-10T10:30Z'))).toMatchObject({
      active: true,
      since: at('2025-06-10T09:00Z'),
      until: at('2025-06-10T12:00Z'),
    });
    expect(windowStatus(utc('@hourly', 3600), at('2025-06-10T10:30Z'))).toEqual({ active: true });
    expect(windowStatus(utc('0 0 30 2 *', 60), at('2025-06-10T10:30Z'))).toEqual({ active: true });
  });
});

describe('static facts', () => {
  it.each([
    [utc('@daily', 172_800), true],
    [utc('@daily', 86_400), true],
    [utc('@daily', 86_399), false],
    [utc('@hourly', 3600), true],
    [utc('0 0 30 2 *', 0), true],
    [utc('0 9 * * mon-fri', 28_800), false],
    [utc('0 9 * * mon-fri', 3 * 86_400), true], // Friday 09:00 to Monday 09:00
    [utc('0 9 * * mon-fri', 3 * 86_400 - 60), false],
    [utc('@monthly', 31 * 86_400), true],
    [utc('@monthly', 30 * 86_400), false],
    [utc('@yearly', 366 * 86_400), true],
    [utc('@yearly', 365 * 86_400), false],
    [utc('0,30 * * * *', 1800), true],
    [utc('* * * * *', 0), false],
    [{ cron: '@daily', durationSeconds: 86_400, timeZone: 'Europe/Berlin' }, false], // a 25h day
    [{ cron: '@daily', durationSeconds: 90_000, timeZone: 'Europe/Berlin' }, true],
    [{ cron: '@daily', durationSeconds: 86_400, timeZone: 'Asia/Kolkata' }, true],
  ])('scheduleAlwaysActive(%j) → %s', (spec, expected) => {
    expect(scheduleAlwaysActive(spec)).toBe(expected);
  });

  it.each([
    [utc('@daily', 0), true],
    [utc('@daily', 60), false],
    [utc('0 0 30 2 *', 0), false],
  ])('windowNeverOpens(%j) → %s', (spec, expected) => {
    expect(windowNeverOpens(spec)).toBe(expected);
  });

  it('always-active verdicts hold on sampled instants', () => {
    for (const spec of [utc('@monthly', 31 * 86_400), utc('0 9 * * mon-fri', 3 * 86_400)]) {
      expect(activeIntervals(spec, at('2024-01-01T00:00Z'), at('2026-01-01T00:00Z'))).toEqual([
        [at('2024-01-01T00:00Z'), at('2026-01-01T00:00Z')],
      ]);
    }
  });
});

describe('caching', () => {
  it('answers consistently when time goes back and forth', () => {
    const spec = utc('@yearly', 600);
    const times = [
      '2025-01-01T00:05Z',
      '2024-12-31T23:59Z',
      '2025-01-01T00:05Z',
      '2025-01-01T00:10Z',
      '2025-01-01T00:00Z',
      '2026-01-01T00:09Z',
      '2025-06-01T00:00Z',
    ];
    const expected = [true, false, true, false, true, true, false];
    for (let round = 0; round < 3; round++) {
      expect(times.map((t) => isWindowActive(spec, at(t)))).toEqual(expected);
    }
  });

  it('a fresh spec object with the same content gets the same answer', () => {
    const a = utc('0 9 * * mon-fri', 28_800);
    const b = { ...a };
    expect(isWindowActive(a, at('2025-06-09T10:00Z'))).toBe(true);
    expect(isWindowActive(b, at('2025-06-09T10:00Z'))).toBe(true);
    expect(isWindowActive({ ...a, durationSeconds: 1800 }, at('2025-06-09T10:00Z'))).toBe(false);
  });
});
