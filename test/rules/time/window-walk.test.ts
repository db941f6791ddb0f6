// SPDX-License-Identifier: Apache-2.0
import { CronExpressionParser } from 'cron-parser';
import { describe, expect, it } from 'vitest';
import { validateCron } from '../../../rules/cron.js';
import type { WindowSpec } from '../../../rules/model.js';
import { activeIntervals, isWindowActive, scheduleAlwaysActive } from '../../../rules/window.js';
import { scheduleFor } from '../../../rules/window-hits.js';

const at = (iso: string): number => Date.parse(iso);
const normalized = (cron: string): string => {
  const checked = validateCron(cron);
  if (!checked.ok) throw new Error(checked.error);
  return checked.normalized;
};

function hits(cron: string, zone: string, from: number, to: number): number[] {
  const s = scheduleFor(normalized(cron), zone);
  const out: number[] = [];
  for (let t = s.nextHit(from - 1); t < to; t = s.nextHit(t)) out.push(t);
  return out;
}

describe('hit walking across DST', () => {
  it('agrees with cron-parser outside DST changes', () => {
    for (const [cron, zone] of [
      ['0 9 * * 1-5', 'Asia/Kolkata'],
      ['*/20 1-3 * * *', 'Europe/Berlin'],
      ['0 0 1,15 * 1', 'America/New_York'],
      ['30 23 * * *', 'Australia/Sydney'],
    ]) {
      const from = at('2025-05-01T00:00Z');
      const to = at('2025-06-15T00:00Z');
      const e = CronExpressionParser.parse(normalized(cron), { currentDate: new Date(from - 1), tz: zone });
      const expected: number[] = [];
      for (let t = e.next().getTime(); t < to; t = e.next().getTime()) expected.push(t);
      expect(hits(cron, zone, from, to)).toEqual(expected);
    }
  });

  it.each([
    // Midnight does not exist on these spring-forward days: @daily fires at 01:00 new time.
    [
      'America/Santiago',
      '2025-09-06T12:00Z',
      '2025-09-08T12:00Z',
      ['2025-09-07T04:00:00.000Z', '2025-09-08T03:00:00.000Z'],
    ],
    [
      'America/Havana',
      '2025-03-08T12:00Z',
      '2025-03-10T12:00Z',
      ['2025-03-09T05:00:00.000Z', '2025-03-10T04:00:00.000Z'],
    ],
    ['Asia/Beirut', '2025-03-29T12:00Z', '2025-03-31T12:00Z', ['2025-03-29T22:00:00.000Z', '2025-03-30T21:00:00.000Z']],
  ])('@daily in %s', (zone, from, to, expected) => {
    expect(hits('@daily', zone, at(from), at(to)).map((t) => new Date(t).toISOString())).toEqual(expected);
  });

  it('hourly schedules follow the real clock through both changes (incl. half-hour DST)', () => {
    for (const zone of ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe']) {
      const day = hits('@hourly', zone, at('2025-01-01T00:00Z'), at('2026-01-01T00:00Z'));
      const gaps = new Set(day.slice(1).map((t, i) => t - day[i]));
      // Lord Howe's 30-minute shift makes one gap of 30 and one of 90 minutes.
      expect(
        [...gaps].every(
          (g) => g === 3_600_000 || (zone === 'Australia/Lord_Howe' && (g === 1_800_000 || g === 5_400_000)),
        ),
      ).toBe(true);
      const spec: WindowSpec = { cron: '@hourly', durationSeconds: 5400, timeZone: zone };
      expect(activeIntervals(spec, at('2025-01-01T00:00Z'), at('2026-01-01T00:00Z'))).toEqual([
        [at('2025-01-01T00:00Z'), at('2026-01-01T00:00Z')],
      ]);
    }
  });

  it('fall-back: fixed hours fire once, star hours at both occurrences', () => {
    const from = at('2025-10-25T22:00Z');
    const to = at('2025-10-26T03:00Z');
    expect(hits('0 2 * * *', 'Europe/Berlin', from, to)).toEqual([at('2025-10-26T00:00Z')]);
    expect(hits('0 * * * *', 'Europe/Berlin', from, to)).toEqual(
      ['22', '23']
        .map((h) => at(`2025-10-25T${h}:00Z`))
        .concat(['00', '01', '02'].map((h) => at(`2025-10-26T${h}:00Z`))),
    );
  });

  it('evaluates windows in DST-at-midnight zones without errors', () => {
    const spec: WindowSpec = { cron: '0 0 * * 0', durationSeconds: 7200, timeZone: 'America/Santiago' };
    expect(isWindowActive(spec, at('2025-09-07T04:30Z'))).toBe(true); // 01:30 on the Sunday of the change
    expect(isWindowActive(spec, at('2025-09-07T06:00Z'))).toBe(false);
    expect(scheduleAlwaysActive({ cron: '@hourly', durationSeconds: 3600, timeZone: 'America/Santiago' })).toBe(false);
  });
});
