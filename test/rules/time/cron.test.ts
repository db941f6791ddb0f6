// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { cronFields, cronNeverFires, validateCron } from '../../../rules/cron.js';
import { scheduleFor } from '../../../rules/window-hits.js';
import { bruteForceHits } from './robfig-oracle.js';

describe('validateCron: accepted schedules and their normal form', () => {
  it.each([
    ['@daily', '@daily'],
    ['@midnight', '@midnight'],
    ['@annually', '@annually'],
    ['  @hourly  ', '@hourly'],
    ['0 9 * * mon-fri', '0 9 * * 1-5'],
    ['0 9 * * MON-FRI', '0 9 * * 1-5'],
    ['0 0 1 jan,JUL *', '0 0 1 1,7 *'],
    ['*/15 * * * *', '*/15 * * * *'],
    ['0,15,30,45 * * * *', '*/15 * * * *'],
    ['0,15,30 * * * *', '0-30/15 * * * *'],
    ['0 0 * * 1,3,5', '0 0 * * 1-5/2'],
    ['0 0,12 * * *', '0 0,12 * * *'],
    ['0 0 */1 * mon', '0 0 * * 1'],
    ['0 0 ? * ?', '0 0 * * *'],
    ['0 0 1-31 * mon', '0 0 1-31 * 1'],
    ['0 0 */2 * *', '0 0 */2 * *'],
    ['0 0 1-31/2 * mon', '0 0 */2 * 1'],
    ['5/20 * * * *', '5-45/20 * * * *'],
    ['*-5 0 1 * *', '* 0 1 * *'],
    ['0 0 , * mon', '0 0 * * 1'],
    ['0 0 1 * ,', '0 0 1 * *'],
    ['0 0 , * *', '0 0 30 2 *'],
    [', 0 * * *', '0 0 30 2 *'],
    ['+5 0 * * *', '5 0 * * *'],
    ['0\t0  *\n* *', '0 0 * * *'],
    ['0 0 29 2 *', '0 0 29 2 *'],
    ['0 0 * * 0-6', '0 0 * * 0-6'],
  ])('%j → %j', (expr, normalized) => {
    expect(validateCron(expr)).toEqual({ ok: true, normalized });
  });

  it('normal forms validate to themselves', () => {
    for (const expr of ['0 9 * * mon-fri', '*/7 1-5 */3 feb-jun sat,sun', '@weekly', '0 0 , * *']) {
      const first = validateCron(expr);
      expect(first.ok && validateCron(first.normalized)).toEqual(first);
    }
  });
});

describe('validateCron: errors (robfig texts, KARPENTER.md#budget-windows)', () => {
  it.each([
    ['@dailyfoo', 'descriptor', 'unrecognized descriptor: @dailyfoo'],
    ['@DAILY', 'descriptor', 'unrecognized descriptor: @DAILY'],
    ['@Daily', 'descriptor', 'unrecognized descriptor: @Daily'],
    ['* * * * * *', 'fieldCount', 'expected exactly 5 fields, found 6: [* * * * * *]'],
    ['TZ=Europe/Berlin 0 0 * * *', 'fieldCount', 'expected exactly 5 fields, found 6: [TZ=Europe/Berlin 0 0 * * *]'],
    ['*', 'fieldCount', 'expected exactly 5 fields, found 1: [*]'],
    ['* * * * ', 'fieldCount', 'expected exactly 5 fields, found 4: [* * * *]'],
    ['   ', 'fieldCount', 'expected exactly 5 fields, found 0: []'],
    ['', 'field', 'empty spec string'],
    ['a b c d e', 'field', 'failed to parse int from a: strconv.Atoi: parsing "a": invalid syntax'],
    ['0 0 * * tue-mon', 'field', 'beginning of range (2) beyond end of range (1): tue-mon'],
    ['0 0 * * 7', 'dow7', 'end of range (7) above maximum (6): 7'],
    ['0 0 * * 5-7', 'dow7', 'end of range (7) above maximum (6): 5-7'],
    ['0 0 * * 8', 'field', 'end of range (8) above maximum (6): 8'],
    ['60 * * * *', 'field', 'end of range (60) above maximum (59): 60'],
    ['0 24 * * *', 'field', 'end of range (24) above maximum (23): 24'],
    ['0 0 0 * *', 'field', 'beginning of range (0) below minimum (1): 0'],
    ['0 0 32 * *', 'field', 'end of range (32) above maximum (31): 32'],
    ['0 0 * 13 *', 'field', 'end of range (13) above maximum (12): 13'],
    ['*/0 * * * *', 'field', 'step of range should be a positive number: */0'],
    ['*/-1 * * * *', 'field', 'negative number (-1) not allowed: -1'],
    ['1-2-3 * * * *', 'field', 'too many hyphens: 1-2-3'],
    ['*/2/3 * * * *', 'field', 'too many slashes: */2/3'],
    ['1- * * * *', 'field', 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'],
    [
      '99999999999999999999 * * * *',
      'field',
      'failed to parse int from 99999999999999999999: strconv.Atoi: parsing "99999999999999999999": value out of range',
    ],
    ['0 0 L * *', 'field', 'failed to parse int from L: strconv.Atoi: parsing "L": invalid syntax'],
    ['0 0 * * 1#2', 'field', 'failed to parse int from 1#2: strconv.Atoi: parsing "1#2": invalid syntax'],
    ['@every 1h', 'descriptor', "unsupported descriptor: @every 1h (Karpenter's schedule pattern rejects @every)"],
  ])('%j → %s: %s', (expr, kind, error) => {
    const result = validateCron(expr);
    expect(result).toMatchObject({ ok: false, kind, error });
  });

  it('reports the field count', () => {
    expect(validateCron('0 0 * * * *')).toMatchObject({ kind: 'fieldCount', found: 6 });
  });

  it('checks fields in robfig order (minute first)', () => {
    expect(validateCron('x 99 * * 7')).toMatchObject({ kind: 'field', error: expect.stringContaining('from x') });
  });
});

describe('validateCron: where a field’s error lies (for kpol’s diagnostics)', () => {
  it.each([
    ['0 9 * * mon-fry', 'dow', 'notAValue', 'fry', 'mon-fry'],
    ['0 9  *  * 1,fry', 'dow', 'notAValue', 'fry', 'fry'],
    ['  0 24 * * *', 'hour', 'aboveMaximum', '24', '24'],
    ['0 0 0 * *', 'dom', 'belowMinimum', '0', '0'],
    ['0 0 1-40 * *', 'dom', 'aboveMaximum', '40', '1-40'],
    ['0 0 * * 1,5-7', 'dow', 'aboveMaximum', '7', '5-7'],
    ['0 22-2 * * *', 'hour', 'reversed', '22-2', '22-2'],
    ['1,*/0 * * * *', 'minute', 'zeroStep', '0', '*/0'],
    ['*/x * * * *', 'minute', 'notAValue', 'x', '*/x'],
    ['1- * * * *', 'minute', 'malformed', '1-', '1-'],
    ['1-2-3 * * * *', 'minute', 'malformed', '1-2-3', '1-2-3'],
  ])('%j: %s %s at `%s`', (expr, field, kind, token, part) => {
    const result = validateCron(expr);
    if (result.ok) throw new Error('expected an error');
    const p = result.problem!;
    expect([p.field, p.kind, expr.slice(p.start, p.end), expr.slice(p.partStart, p.partEnd)]).toEqual([
      field,
      kind,
      token,
      part,
    ]);
  });
});

describe('cronNeverFires', () => {
  it.each([
    ['0 0 30 2 *', true],
    ['0 0 31 4 *', true],
    ['0 0 31 4,6,9,11 *', true],
    ['0 0 30,31 2 *', true],
    ['0 0 , * *', true],
    ['0 0 29 2 *', false],
    ['0 0 31 * *', false],
    ['0 0 30 2 mon', false], // both restricted: OR, so Mondays in February
    ['@yearly', false],
    ['0 0 * * *', false],
  ])('%s → %s', (cron, never) => {
    const checked = validateCron(cron);
    expect(checked.ok && cronNeverFires(checked.normalized)).toBe(never);
  });
});

describe('hits agree with a brute-force robfig matcher', () => {
  const DAY = 86_400_000;
  const from = Date.UTC(2023, 11, 20);
  // [schedule, days to scan]: dense schedules get short spans to keep the test fast.
  it.each([
    ['*/2 * 1,15 * mon', 20],
    ['0 0 */2 * mon', 120],
    ['0 0 * * mon', 120],
    ['0 0 1-31 * mon', 60],
    ['0 0 */1 * mon', 120],
    ['0 0 ? * 1-5', 60],
    ['30 4 1,15 * 5', 200],
    ['0 12 * jan,jul sun', 400],
    ['15 */6 31 * *', 400],
    ['0 0 5/10 * *', 120],
    ['*-5 0 1 * *', 45],
    ['0 0 , * mon', 90],
    ['59 23 28-31 2 *', 800],
    ['0 0 29 2 *', 800],
    ['0 9-17/4 * * 1,3,5', 40],
    ['0 0 */2 * 1', 90],
    ['*/7 */5 */3 */2 */2', 60],
    ['0 0 2/3 * 2/2', 90],
    ['@weekly', 120],
    ['@monthly', 400],
    ['@midnight', 40],
    ['@yearly', 800],
    ['0 0 13 * 5', 400],
    ['0 0 13 * *', 400],
    ['0 0 * * 5', 60],
    ['*/20 1 1-7 * 0', 90],
  ])('%s', (cron, days) => {
    const to = from + days * DAY;
    const expected = bruteForceHits(cron, from, to);
    const checked = validateCron(cron);
    if (!checked.ok) throw new Error(checked.error);
    for (const zone of ['UTC', 'Asia/Kolkata']) {
      const offset = zone === 'UTC' ? 0 : 330 * 60_000;
      const want = zone === 'UTC' ? expected : bruteForceHits(cron, from, to, offset);
      const schedule = scheduleFor(checked.normalized, zone);
      const got: number[] = [];
      for (let t = schedule.nextHit(from - 1); t < to; t = schedule.nextHit(t)) got.push(t);
      expect(got.map((t) => new Date(t).toISOString())).toEqual(want.map((t) => new Date(t).toISOString()));
    }
  });

  it('cronFields expands descriptors with robfig star bits', () => {
    expect(cronFields('@weekly')).toMatchObject({ dom: { star: true }, dow: { values: [0], star: false } });
    expect(cronFields('@yearly')).toMatchObject({ dom: { values: [1], star: false }, dow: { star: true } });
  });
});
