// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { at, covered, diagnosticsOf, inPolicy, positionOf } from './helpers.js';

interface Row {
  title: string;
  text: string;
  code: string;
  token: string;
  nth?: number;
  count?: number; // how many diagnostics with this code (default 1)
  severity?: 'warning' | 'info';
  help?: string;
  message?: RegExp;
}

const rows: Row[] = [
  { title: 'zero-duration window', text: inPolicy('budget 0 during "@daily" for 0m'), code: 'KPOL3001', token: '0m' },
  {
    title: 'zero duration in a schedule declaration',
    text: `schedule z = "@daily" for 0m\n${inPolicy('budget 0 during z')}`,
    code: 'KPOL3001',
    token: '0m',
  },
  {
    title: 'schedule never fires (Feb 30)',
    text: inPolicy('budget 0 during "0 0 30 2 *" for 1h'),
    code: 'KPOL3002',
    token: '"0 0 30 2 *"',
  },
  {
    title: 'schedule never fires (Apr 31)',
    text: inPolicy('budget 0 during "0 0 31 4 *" for 1h'),
    code: 'KPOL3002',
    token: '"0 0 31 4 *"',
  },
  {
    title: '@hourly for 1h',
    text: inPolicy('budget 0 during "@hourly" for 1h'),
    code: 'KPOL3005',
    token: '"@hourly" for 1h',
    message: /`@hourly` for `1h`/,
  },
  {
    title: '@daily for 48h',
    text: inPolicy('budget 0 during "@daily" for 48h'),
    code: 'KPOL3005',
    token: '"@daily" for 48h',
  },
  {
    title: 'maintenance window always active',
    text: inPolicy('window w blocks Drifted during "*/5 * * * *" for 5m'),
    code: 'KPOL3005',
    token: '"*/5 * * * *" for 5m',
  },
  {
    title: 'allow window always open',
    text: inPolicy('allow 3 Drifted only during "@daily" for 24h', 'budget 1'),
    code: 'KPOL3008',
    token: '"@daily" for 24h',
  },
  {
    title: 'budget shadowed by a smaller count',
    text: inPolicy('budget 5', 'budget 10 for Drifted'),
    code: 'KPOL3003',
    token: 'budget 10 for Drifted',
  },
  {
    title: 'budget shadowed by a smaller percent',
    text: inPolicy('budget 10% for Empty, Drifted', 'budget 20% for Drifted during "@daily" for 1h', 'budget 1'),
    code: 'KPOL3003',
    token: 'budget 20% for Drifted during "@daily" for 1h',
  },
  {
    title: 'identical budgets: the second is shadowed',
    text: inPolicy('budget 5', 'budget 5'),
    code: 'KPOL3003',
    token: 'budget 5',
    nth: 2,
  },
  {
    title: 'reason left unlimited',
    text: inPolicy('budget 0 for Drifted'),
    code: 'KPOL3004',
    token: 'p',
    nth: 2,
    count: 2,
    help: 'add `budget <n> for Empty`, or a budget without reasons',
  },
  {
    title: 'Expired unlimited with graceful expiration',
    text: inPolicy('expire after 720h gracefully', 'budget 1 for Empty, Drifted, Underutilized'),
    code: 'KPOL3004',
    token: 'p',
    nth: 2,
    message: /`Expired`/,
  },
  {
    title: 'unused schedule',
    text: `schedule spare = "@daily" for 1h\n${inPolicy('budget 1')}`,
    code: 'KPOL3009',
    token: 'spare',
  },
];

describe('checker warnings', () => {
  it.each(rows)('$title → $code', ({ text, code, token, nth, count, severity, help, message }) => {
    const all = diagnosticsOf(text);
    const found = all.filter((d) => d.code === code);
    expect(found, JSON.stringify(all, null, 1)).toHaveLength(count ?? 1);
    const d = found[0];
    expect(d.severity).toBe(severity ?? 'warning');
    expect(at(d)).toBe(positionOf(text, token, nth));
    expect(covered(text, d)).toBe(token);
    expect(all.filter((x) => x.severity === 'error')).toEqual([]);
    if (help !== undefined) expect(d.help).toBe(help);
    if (message) expect(d.message).toMatch(message);
  });

  it('reports a freeze in the past as info only when now is given', () => {
    const text = inPolicy('freeze from "2020-01-01 00:00" to "2020-01-02 00:00"', 'budget 1');
    expect(diagnosticsOf(text).filter((d) => d.code === 'KPOL3010')).toEqual([]);
    const [d] = diagnosticsOf(text, Date.parse('2026-01-01T00:00:00Z')).filter((x) => x.code === 'KPOL3010');
    expect(d.severity).toBe('info');
    expect(covered(text, d)).toBe('"2020-01-02 00:00"');
  });

  it.each([
    [
      'a windowed budget larger than nothing always active',
      ['budget 0 for Underutilized during "@daily" for 10m', 'budget 5'],
    ],
    ['a stricter budget that is only sometimes active', ['budget 0 during "@daily" for 10m', 'budget 5']],
    ['a smaller budget of the other kind', ['budget 10%', 'budget 5']],
    [
      'a smaller budget covering fewer reasons',
      ['budget 1 for Drifted', 'budget 5 for Drifted, Empty', 'budget 1 for Underutilized'],
    ],
    ['an allow window (0 outside it)', ['budget 5', 'allow 10 Drifted only during "@daily" for 1h']],
  ])('does not report a shadowed budget for %s', (_title, statements) => {
    expect(diagnosticsOf(inPolicy(...statements)).filter((d) => d.code === 'KPOL3003')).toEqual([]);
  });

  it.each([
    ['no budgets at all (the 10% default applies)', ['consolidate when empty']],
    ['a budget without reasons', ['budget 0 for Drifted', 'budget 5']],
    ['WhenEmpty never meets Underutilized', ['consolidate when empty', 'budget 1 for Empty, Drifted']],
    ['no consolidation meets neither Empty nor Underutilized', ['consolidate never', 'budget 1 for Drifted']],
    ['an allow window names the reason', ['allow 2 only during "@daily" for 2h']],
  ])('does not report an unlimited reason with %s', (_title, statements) => {
    expect(diagnosticsOf(inPolicy(...statements)).filter((d) => d.code === 'KPOL3004')).toEqual([]);
  });

  it('does not repeat an invalid window as a warning', () => {
    const codes = diagnosticsOf(inPolicy('budget 0 during "@hourly" for 90m30s')).map((d) => d.code);
    expect(codes).toEqual(['KPOL2003']);
  });
});
