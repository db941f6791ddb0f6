// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { KARPENTER_PATTERNS } from '../../../rules/duration.js';
import { validateCron } from '../../../rules/cron.js';
import type { WindowSpec } from '../../../rules/model.js';
import { isWindowActive } from '../../../rules/window.js';
import { denyWindowsFor } from '../../../rules/window-complement.js';

const MINUTE = 60_000;

/** Samples every `stepMinutes` (plus odd offsets) over `weeks` weeks: allow ⇔ no deny window. */
function expectComplement(allow: WindowSpec, weeks = 3, stepMinutes = 7): void {
  const result = denyWindowsFor(allow);
  if (!result.ok) throw new Error(result.reason);
  for (const w of result.windows) {
    expect(validateCron(w.cron)).toEqual({ ok: true, normalized: expect.any(String) });
    expect(KARPENTER_PATTERNS.schedule.test(w.cron)).toBe(true);
    expect(w.durationSeconds % 60).toBe(0);
    expect(w.durationSeconds).toBeGreaterThan(0);
  }
  const deny = result.windows.map((w) => ({ cron: w.cron, durationSeconds: w.durationSeconds, timeZone: 'UTC' }));
  const start = Date.UTC(2025, 5, 1, 0, 0, 0);
  for (let t = start; t < start + weeks * 7 * 1440 * MINUTE; t += stepMinutes * MINUTE) {
    for (const probe of [t, t - 1, t + 29_999]) {
      const allowed = isWindowActive(allow, probe);
      const denied = deny.some((d) => isWindowActive(d, probe));
      if (allowed === denied)
        throw new Error(
          `at ${new Date(probe).toISOString()}: allow=${allowed} deny=${denied} (${JSON.stringify(result.windows)})`,
        );
    }
  }
}

describe('denyWindowsFor: the complement of an allow window', () => {
  it.each([
    ['0 9 * * mon-fri', 8 * 3600, 'UTC'],
    ['0 9 * * mon-fri', 8 * 3600, 'Asia/Kolkata'],
    ['30 22 * * fri', 6 * 3600, 'Asia/Kolkata'], // crosses midnight and the UTC day boundary
    ['0 1 * * sun', 3 * 3600, 'Asia/Kolkata'], // Sunday 01:00 IST is Saturday 19:30 UTC
    ['0 2,14 * * *', 3600, 'UTC'],
    ['0,30 9-11 * * 1,3', 1200, 'Asia/Tokyo'],
    ['*/20 * * * *', 600, 'UTC'],
    ['@daily', 4 * 3600, 'Asia/Kolkata'],
    ['@weekly', 86_400, 'UTC'],
    ['@hourly', 1800, 'America/Panama'],
    ['0 0 * * sat', 3 * 86_400, 'UTC'], // longer than the gap before itself: overlapping allow runs
    ['15 10 1-31 * *', 900, 'UTC'],
  ])('%s for %is in %s', (cron, seconds, timeZone) => {
    expectComplement({ cron, durationSeconds: seconds, timeZone });
  });

  it('keeps the number of windows small by sharing lists', () => {
    const result = denyWindowsFor({ cron: '0 9 * * mon-fri', durationSeconds: 8 * 3600, timeZone: 'UTC' });
    expect(result).toEqual({
      ok: true,
      windows: expect.arrayContaining([{ cron: '0 17 * * 1-4', durationSeconds: 16 * 3600 }]),
    });
    expect(result.ok && result.windows).toHaveLength(2);
    const dense = denyWindowsFor({ cron: '*/5 * * * *', durationSeconds: 60, timeZone: 'UTC' });
    expect(dense).toEqual({
      ok: true,
      windows: [{ cron: '1,6,11,16,21,26,31,36,41,46,51,56 * * * *', durationSeconds: 240 }],
    });
  });

  it('handles always-open and never-open allow windows', () => {
    expect(denyWindowsFor({ cron: '@hourly', durationSeconds: 3600, timeZone: 'UTC' })).toEqual({
      ok: true,
      windows: [],
    });
    expect(denyWindowsFor({ cron: '0 0 30 2 *', durationSeconds: 60, timeZone: 'UTC' })).toEqual({
      ok: true,
      windows: [],
    });
    expectComplement({ cron: '0 9 * * *', durationSeconds: 0, timeZone: 'UTC' }, 2, 61);
  });

  it.each([
    [{ cron: '0 9 * * mon-fri', durationSeconds: 3600, timeZone: 'Europe/Berlin' }, 'observes daylight saving time'],
    [{ cron: '0 9 * * mon-fri', durationSeconds: 3600, timeZone: 'America/New_York' }, 'observes daylight saving time'],
    [{ cron: '@monthly', durationSeconds: 3600, timeZone: 'UTC' }, 'days of the month'],
    [{ cron: '0 0 1,15 * mon', durationSeconds: 3600, timeZone: 'UTC' }, 'days of the month'],
    [{ cron: '0 0 * 1-6 *', durationSeconds: 3600, timeZone: 'UTC' }, 'restricts months'],
    [{ cron: '@daily', durationSeconds: 90, timeZone: 'UTC' }, 'whole minutes'],
    [{ cron: '0 0 * * 7', durationSeconds: 60, timeZone: 'UTC' }, 'end of range (7) above maximum (6)'],
    [{ cron: '@daily', durationSeconds: 60, timeZone: 'Nowhere/Special' }, 'unknown time zone'],
  ])('refuses %j (%s)', (allow, reason) => {
    const result = denyWindowsFor(allow);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain(reason);
  });
});
