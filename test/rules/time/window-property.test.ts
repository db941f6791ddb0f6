// SPDX-License-Identifier: Apache-2.0
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateCron } from '../../../rules/cron.js';
import type { WindowSpec } from '../../../rules/model.js';
import { activeIntervals, isWindowActive } from '../../../rules/window.js';
import { everFires, robfigMatcher } from './robfig-oracle.js';

const minute = fc.constantFrom('0', '*/15', '5,35', '*', '59', '10-12');
const hour = fc.constantFrom('*', '9', '0-6', '*/5', '23', '1,13');
const dom = fc.constantFrom('*', '1', '15-20', '*/10', '?', '31', '29');
const month = fc.constantFrom('*', '1-6', '2', 'mar,sep', '*/4');
const dow = fc.constantFrom('*', '1-5', '0', 'sat,sun', '?', '3');
const cron = fc.oneof(
  fc.tuple(minute, hour, dom, month, dow).map((f) => f.join(' ')),
  fc.constantFrom('@daily', '@hourly', '@weekly', '@monthly', '@yearly', '0 0 30 2 *'),
);
const duration = fc.constantFrom(0, 60, 600, 3600, 8 * 3600, 2 * 86_400, 5400);
const zone = fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe');
const instant = fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2027, 0, 1) });

function inIntervals(intervals: Array<[number, number]>, t: number): boolean {
  return intervals.some(([a, b]) => a <= t && t < b);
}

describe('isWindowActive agrees with activeIntervals', () => {
  it('on random schedules, zones and instants', () => {
    fc.assert(
      fc.property(cron, duration, zone, fc.array(instant, { minLength: 1, maxLength: 6 }), (c, d, z, times) => {
        const spec: WindowSpec = { cron: c, durationSeconds: d, timeZone: z };
        for (const t of times) {
          // Both ends of the range are far enough away that clipping cannot matter.
          const intervals = activeIntervals(spec, t - 3 * 86_400_000, t + 3 * 86_400_000);
          expect(isWindowActive(spec, t)).toBe(inIntervals(intervals, t));
        }
      }),
      { numRuns: 150, seed: 20251122 },
    );
  });

  it('around window edges, where off-by-one errors live', () => {
    fc.assert(
      fc.property(cron, duration, zone, instant, fc.constantFrom(-1, 0, 1, 999, 1000), (c, d, z, t, nudge) => {
        const spec: WindowSpec = { cron: c, durationSeconds: d, timeZone: z };
        const intervals = activeIntervals(spec, t, t + 40 * 86_400_000);
        for (const [a, b] of intervals.slice(0, 3)) {
          for (const probe of [a + nudge, b + nudge, a - 1, b - 1]) {
            const around = activeIntervals(spec, probe - 3 * 86_400_000, probe + 3 * 86_400_000);
            expect(isWindowActive(spec, probe)).toBe(inIntervals(around, probe));
          }
        }
      }),
      { numRuns: 80, seed: 7 },
    );
  });
});

describe('isWindowActive agrees with a brute-force robfig evaluation in UTC', () => {
  it('active ⇔ some matching minute lies in (now − duration, now]', () => {
    fc.assert(
      fc.property(cron, duration, instant, (c, d, t) => {
        const checked = validateCron(c);
        if (!checked.ok) throw new Error(checked.error);
        const match = robfigMatcher(checked.normalized);
        let expected = !everFires(checked.normalized); // never fires: robfig's zero time, always active
        for (let m = Math.floor(t / 60_000) * 60_000; !expected && m > t - d * 1000; m -= 60_000)
          expected = match(new Date(m));
        expect(isWindowActive({ cron: c, durationSeconds: d, timeZone: 'UTC' }, t)).toBe(expected);
      }),
      { numRuns: 200, seed: 42 },
    );
  });
});
