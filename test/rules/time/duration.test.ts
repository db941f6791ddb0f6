// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import {
  KARPENTER_PATTERNS,
  formatDuration,
  parseGoDuration,
  parseKarpenterBudgetDuration,
  parseKarpenterDurationOrNever,
  parseKpolDuration,
} from '../../../rules/duration.js';

describe('parseKpolDuration', () => {
  it.each([
    ['30s', 30],
    ['5m', 300],
    ['1h30m', 5400],
    ['1h30m0s', 5400],
    ['720h', 2_592_000],
    ['7d', 604_800],
    ['1d12h', 129_600],
    ['0s', 0],
    ['30m1h', 5400],
  ])('%s → %i seconds', (text, seconds) => {
    expect(parseKpolDuration(text)).toBe(seconds);
  });

  it.each(['', '1', '5ms', '1.5h', '-5m', '+5m', '1hr', '1 h', 'h', '1w', 'Never', '99999999999999999999d'])(
    'rejects %j',
    (text) => {
      expect(parseKpolDuration(text)).toBeUndefined();
    },
  );
});

describe('parseGoDuration', () => {
  it.each([
    ['0', 0],
    ['-0', 0],
    ['+0', 0],
    ['0s', 0],
    ['1.5h', 5400],
    ['300ms', 0.3],
    ['-5m', -300],
    ['1h30m', 5400],
    ['1h30m0s', 5400],
    ['90s', 90],
    ['1.h', 3600],
    ['.5s', 0.5],
    ['1us', 0.000001],
    ['1µs', 0.000001],
    ['1μs', 0.000001],
    ['1ns', 1e-9],
    ['2562047h', 2562047 * 3600],
  ])('%s → %d seconds', (text, seconds) => {
    expect(parseGoDuration(text)).toBeCloseTo(seconds, 9);
  });

  it.each(['', '1', '00', 'true', 'false', '1d', '.s', '.', '1hr', '-', '1h 30m', '3000000h', '9223372037s'])(
    'rejects %j',
    (text) => {
      expect(parseGoDuration(text)).toBeUndefined();
    },
  );
});

describe('formatDuration', () => {
  it.each([
    [5400, '1h30m'],
    [2_592_000, '720h'],
    [90, '1m30s'],
    [0, '0s'],
    [3600, '1h'],
    [3601, '1h1s'],
    [600, '10m'],
    [1.5, '1.5s'],
    [-300, '-5m'],
  ])('%d → %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });

  it('round-trips through both parsers', () => {
    for (const s of [1, 59, 60, 61, 3599, 3600, 86_400, 90_061]) {
      expect(parseKpolDuration(formatDuration(s))).toBe(s);
      expect(parseGoDuration(formatDuration(s))).toBe(s);
    }
  });
});

describe('KARPENTER_PATTERNS (KARPENTER.md#budget-fields, checked with Go RE2)', () => {
  const cases: Array<readonly [keyof typeof KARPENTER_PATTERNS, string, boolean]> = [
    ...['0', '05', '1000', '0%', '9%', '99%', '100%'].map((v) => ['nodes', v, true] as const),
    ...['101%', '1000%', '-10', '-10%', '10.5%', '', ' 10'].map((v) => ['nodes', v, false] as const),
    ...[
      '@daily',
      '@annually',
      '@yearly',
      '@monthly',
      '@weekly',
      '@midnight',
      '@hourly',
      '@dailyfoo',
      '* * * * * *',
      'TZ=Europe/Berlin 0 0 * * *',
      'a b c d e',
      '0 9 * * mon-fri',
      '@daily ',
    ].map((v) => ['schedule', v, true] as const),
    ...['*', '* * * * ', '@every 1h', '', '@DAILY', 'daily'].map((v) => ['schedule', v, false] as const),
    ...['1h', '30m', '1h30m', '2h20m', '160h', '1h30m0s', '10m0s', '1h0s', '0m'].map(
      (v) => ['budgetDuration', v, true] as const,
    ),
    ...['30s', '90s', '1h30m5s', '1d', '1.5h', '-20m', '', '0s'].map((v) => ['budgetDuration', v, false] as const),
    ...['0s', '30s', '1h30m5s', '720h', 'Never'].map((v) => ['durNever', v, true] as const),
    ...['never', 'FooNever', '-1s', '1hr', '1.5h', '', 'Never '].map((v) => ['durNever', v, false] as const),
    ...['0s', '30s', '1h30m5s', '720h'].map((v) => ['tgp', v, true] as const),
    ...['Never', '1.5h', '-1s', '1d', ''].map((v) => ['tgp', v, false] as const),
  ];

  it.each(cases)('%s %j → %s', (pattern, value, accepted) => {
    expect(KARPENTER_PATTERNS[pattern].test(value)).toBe(accepted);
  });

  it('reads \\s and . the RE2 way', () => {
    // U+00A0 is \s in JavaScript but not in RE2; \r is matched by RE2's `.` but not by JavaScript's.
    expect(KARPENTER_PATTERNS.schedule.test('0\u00a00\u00a0*\u00a0*\u00a0*')).toBe(false);
    expect(KARPENTER_PATTERNS.schedule.test('0\r 0 * * *')).toBe(true);
  });
});

describe('Karpenter duration fields', () => {
  it.each([
    ['10m', 600],
    ['1h30m0s', 5400],
    ['0m', 0],
    ['1.5h', 5400],
    ['bogus', undefined],
  ])('budget duration %s → %s', (text, seconds) => {
    expect(parseKarpenterBudgetDuration(text)).toBe(seconds);
  });

  it.each([
    ['Never', null],
    ['720h', 2_592_000],
    ['0s', 0],
    ['never', undefined],
    ['', undefined],
  ])('duration-or-never %j → %s', (text, seconds) => {
    expect(parseKarpenterDurationOrNever(text)).toBe(seconds);
  });
});
