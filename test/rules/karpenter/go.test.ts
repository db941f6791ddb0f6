// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { goAtoi, goParseDuration, goQuote, goTimeQuote } from '../../../rules/karpenter-go.js';

describe('goParseDuration (time.ParseDuration)', () => {
  it.each([
    ['0', 0],
    ['5m', 300],
    ['1h30m', 5400],
    ['1.5h', 5400],
    ['300ms', 0.3],
    ['-5m', -300],
    ['+5s', 5],
    ['1h0m0s', 3600],
    ['.5s', 0.5],
    ['1µs', 1e-6],
    ['2562047h', 2562047 * 3600],
  ])('%j → %s s', (text, seconds) => {
    expect(goParseDuration(text)).toEqual({ ok: true, value: seconds });
  });

  it.each([
    ['', 'time: invalid duration ""'],
    ['false', 'time: invalid duration "false"'],
    ['5', 'time: missing unit in duration "5"'],
    ['5d', 'time: unknown unit "d" in duration "5d"'],
    ['1h-5m', 'time: unknown unit "h-" in duration "1h-5m"'],
    ['.s', 'time: invalid duration ".s"'],
    ['3000000h', 'time: invalid duration "3000000h"'],
    ['5 m', 'time: unknown unit " m" in duration "5 m"'],
    ['é', 'time: invalid duration "\\xc3\\xa9"'],
  ])('%j → %s', (text, error) => {
    expect(goParseDuration(text)).toEqual({ ok: false, error });
  });
});

describe('goAtoi (strconv.Atoi)', () => {
  it.each([
    ['05', { ok: true, value: 5 }],
    ['+7', { ok: true, value: 7 }],
    ['-10', { ok: true, value: -10 }],
    ['1000a', { ok: false, error: 'strconv.Atoi: parsing "1000a": invalid syntax' }],
    ['', { ok: false, error: 'strconv.Atoi: parsing "": invalid syntax' }],
    ['99999999999999999999', { ok: false, error: 'strconv.Atoi: parsing "99999999999999999999": value out of range' }],
  ])('%j', (text, expected) => {
    expect(goAtoi(text)).toEqual(expected);
  });
});

describe('quoting', () => {
  it('quotes like Go', () => {
    expect(goQuote('a"b\\c\n')).toBe('"a\\"b\\\\c\\n"');
    expect(goQuote('é')).toBe('"é"');
    expect(goTimeQuote('é')).toBe('"\\xc3\\xa9"');
  });
});
