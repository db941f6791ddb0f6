// SPDX-License-Identifier: Apache-2.0
// Help for durations and percentages written the way other tools write them.
import { describe, expect, it } from 'vitest';
import { kpolDurationFor } from '../../grammar/duration-slips.js';
import { parse } from '../../grammar/parse.js';
import { parseKpolDuration } from '../../rules/duration.js';

describe('kpolDurationFor', () => {
  it.each([
    ['5min', '5m'],
    ['5mins', '5m'],
    ['10minutes', '10m'],
    ['30sec', '30s'],
    ['2hours', '2h'],
    ['2hrs', '2h'],
    ['1h30min', '1h30m'],
    ['7days', '7d'],
    ['2w', '14d'],
    ['1week', '7d'],
    ['1.5h', '1h30m'],
    ['0.5d', '12h'],
    ['2000ms', '2s'],
    ['5H', '5h'],
    ['5 min', '5m'],
    ['90Sec', '90s'],
  ])('%j → %j', (text, kpol) => {
    expect(kpolDurationFor(text)).toBe(kpol);
    expect(parseKpolDuration(kpol)).toBeDefined();
  });

  it.each(['5m', '500ms', '1.0001s', '5M', '5y', 'soon', '5', ''])('%j has no other kpol form', (text) => {
    expect(kpolDurationFor(text)).toBeUndefined();
  });
});

const body = (line: string) => `policy p for nodepool default {\n  ${line}\n}\n`;

describe('slips reported with their fix', () => {
  it.each([
    ['consolidate after 5min', 'KPOL1003', '5min', '5m'],
    ['expire after 30 days', 'KPOL1003', '30 days', '30d'],
    ['termination grace 1.5h', 'KPOL1003', '1.5h', '1h30m'],
    ['budget 0 during "@daily" for 2w', 'KPOL1003', '2w', '14d'],
    ['budget 0 during "@daily" for 5 minutes', 'KPOL1003', '5 minutes', '5m'],
    ['budget 0 during "@daily" 1h', 'KPOL1003', '1h', 'for 1h'],
    ['budget 10 %', 'KPOL1007', '10 %', '10%'],
    ['budget 10\t%', 'KPOL1007', '10\t%', '10%'],
    ['budget %10 for Drifted', 'KPOL1008', '%10', '10%'],
    ['budget % 10', 'KPOL1008', '% 10', '10%'],
  ])('%s', (line, code, token, fix) => {
    const text = body(line);
    const { diagnostics } = parse(text);
    expect(diagnostics.map((d) => d.code)).toEqual([code]);
    const [d] = diagnostics;
    expect(text.slice(d!.range.start.offset, d!.range.end.offset)).toBe(token);
    expect(d!.fix).toBe(fix);
    expect(d!.help).toMatch(new RegExp(`^did you mean \`${fix}\`\\?`));
    expect(parse(text.replace(token, fix)).diagnostics).toEqual([]);
  });

  it('a bare number where a duration belongs gets the units, not a guess', () => {
    const [d] = parse(body('termination grace 30')).diagnostics;
    expect(d!.fix).toBeUndefined();
    expect(d!.help).toBe(
      'durations are whole numbers with the units `s`, `m`, `h` and `d`, as in `90s`, `5m`, `1h30m` or `7d`',
    );
  });

  it('a word beside `10 %` is reported as well: the slip does not hide it', () => {
    const { diagnostics } = parse(body('budjet 10 %'));
    expect(diagnostics.map((d) => [d.code, d.fix])).toEqual([
      ['KPOL1005', 'budget'],
      ['KPOL1007', '10%'],
    ]);
  });

  it('`10 %` still lowers as the 10% it means, so nothing else is reported about it', () => {
    const { value } = parse(body('budget 10 %'));
    expect(value.policies[0]!.statements[0]).toMatchObject({
      kind: 'Budget',
      nodes: { text: '10%', value: 10, percent: true },
    });
  });
});
