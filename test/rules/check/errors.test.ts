// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { at, covered, diagnosticsOf, inPolicy, positionOf } from './helpers.js';

interface Row {
  title: string;
  text: string;
  code: string;
  token: string; // the exact text the diagnostic's range covers
  nth?: number; // which occurrence of `token` (default 1)
  help?: string | RegExp;
  fix?: string;
}

const rows: Row[] = [
  {
    title: 'lower-case reason',
    text: inPolicy('budget 5 for drifted'),
    code: 'KPOL2001',
    token: 'drifted',
    help: 'did you mean `Drifted`?',
    fix: 'Drifted',
  },
  {
    title: 'truncated reason',
    text: inPolicy('budget 5 for Drift'),
    code: 'KPOL2001',
    token: 'Drift',
    help: 'did you mean `Drifted`?',
    fix: 'Drifted',
  },
  {
    title: 'misspelt reason',
    text: inPolicy('budget 5 for Drifed'),
    code: 'KPOL2001',
    token: 'Drifed',
    help: 'did you mean `Drifted`?',
    fix: 'Drifted',
  },
  {
    title: 'British spelling',
    text: inPolicy('budget 5 for underutilised'),
    code: 'KPOL2001',
    token: 'underutilised',
    help: 'did you mean `Underutilized`?',
    fix: 'Underutilized',
  },
  {
    title: 'reason far from any',
    text: inPolicy('budget 5 for Banana'),
    code: 'KPOL2001',
    token: 'Banana',
    help: /^reasons are/,
  },
  {
    title: 'Expired without graceful expiration',
    text: inPolicy('budget 5 for Expired'),
    code: 'KPOL2013',
    token: 'Expired',
  },
  {
    title: 'Expired in a freeze without graceful expiration',
    text: inPolicy('freeze Expired from "2026-12-20 00:00" to "2026-12-21 00:00"'),
    code: 'KPOL2013',
    token: 'Expired',
  },
  {
    title: 'duplicate reason',
    text: inPolicy('budget 5 for Empty, Drifted, Empty'),
    code: 'KPOL2021',
    token: 'Empty',
    nth: 2,
  },
  { title: 'percent over 100', text: inPolicy('budget 101%'), code: 'KPOL2004', token: '101%' },
  {
    title: 'invalid duration',
    text: inPolicy('expire after 500ms'),
    code: 'KPOL2002',
    token: '500ms',
    help: /^durations are whole numbers with the units/,
  },
  {
    title: 'milliseconds that are whole seconds',
    text: inPolicy('expire after 2000ms'),
    code: 'KPOL2002',
    token: '2000ms',
    help: 'did you mean `2s`? durations take the units `s`, `m`, `h` and `d`',
    fix: '2s',
  },
  {
    title: 'budget window in seconds',
    text: inPolicy('budget 0 during "@daily" for 90s'),
    code: 'KPOL2003',
    token: '90s',
  },
  {
    title: 'allow window in seconds',
    text: inPolicy('allow 1 Drifted only during "@daily" for 1h30m5s'),
    code: 'KPOL2003',
    token: '1h30m5s',
  },
  {
    title: 'maintenance window in seconds',
    text: inPolicy('window w blocks Drifted during "@daily" for 30s'),
    code: 'KPOL2003',
    token: '30s',
  },
  {
    title: 'pod window under a minute',
    text: inPolicy('pods where app = "x" disruptable only during "@daily" for 30s'),
    code: 'KPOL2020',
    token: '30s',
  },
  {
    title: 'pod window over 7 days',
    text: inPolicy('pods where app = "x" disruptable only during "@weekly" for 8d'),
    code: 'KPOL2020',
    token: '8d',
  },
  { title: 'zero termination grace', text: inPolicy('termination grace 0s'), code: 'KPOL2023', token: '0s' },
  // Issue 13, defect 1: accepted up to 2^53 s, such a duration overflowed every evaluation's dates.
  {
    title: "consolidation delay past Go's time.Duration",
    text: inPolicy('consolidate after 100000000d'),
    code: 'KPOL2033',
    token: '100000000d',
    help: /at most 106751d/,
  },
  {
    title: "expiry past Go's time.Duration",
    text: inPolicy('expire after 106752d'),
    code: 'KPOL2033',
    token: '106752d',
  },
  {
    title: "window past Go's time.Duration",
    text: inPolicy('budget 0 during "@daily" for 9223372037s'),
    code: 'KPOL2033',
    token: '9223372037s',
  },
  {
    title: 'six cron fields',
    text: inPolicy('budget 0 during "* * * * * *" for 1h'),
    code: 'KPOL2005',
    token: '"* * * * * *"',
  },
  {
    title: 'TZ prefix',
    text: inPolicy('budget 0 during "TZ=Europe/Berlin 0 0 * * *" for 1h'),
    code: 'KPOL2032',
    token: 'TZ=Europe/Berlin',
    help: 'write the zone after the window instead: `in "Europe/Berlin"`',
  },
  {
    title: 'day-of-week 7',
    text: inPolicy('budget 0 during "0 9 * * 7" for 1h'),
    code: 'KPOL2006',
    token: '7',
    help: 'use `0` or `sun` for Sunday',
    fix: '0',
  },
  {
    title: 'day-of-week range to 7',
    text: inPolicy('budget 0 during "0 9 * * 5-7" for 1h'),
    code: 'KPOL2006',
    token: '5-7',
    help: 'use `0` or `sun` for Sunday',
    fix: '5-6,0',
  },
  {
    title: 'unknown macro',
    text: inPolicy('budget 0 during "@dailyfoo" for 1h'),
    code: 'KPOL2007',
    token: '@dailyfoo',
    help: 'did you mean `@daily`?',
    fix: '@daily',
  },
  {
    title: 'misspelt macro',
    text: inPolicy('budget 0 during "@hourli" for 1h'),
    code: 'KPOL2007',
    token: '@hourli',
    help: 'did you mean `@hourly`?',
    fix: '@hourly',
  },
  {
    title: 'non-numeric field',
    text: inPolicy('budget 0 during "a b c d e" for 1h'),
    code: 'KPOL2027',
    token: 'a',
    nth: 2,
    help: 'a minute is a number from `0` to `59`',
  },
  {
    title: 'misspelt day name',
    text: inPolicy('budget 0 during "0 9 * * mon-fry" for 1h'),
    code: 'KPOL2027',
    token: 'fry',
    help: 'did you mean `fri`?',
    fix: 'fri',
  },
  {
    title: 'value out of range',
    text: inPolicy('budget 0 during "0 24 * * *" for 1h'),
    code: 'KPOL2028',
    token: '24',
    help: 'an hour is a number from `0` to `23`',
  },
  {
    title: 'reversed range',
    text: inPolicy('budget 0 during "0 0 * * tue-mon" for 1h'),
    code: 'KPOL2029',
    token: 'tue-mon',
    help: 'ranges do not wrap around: did you mean `tue-sat,sun-mon`?',
    fix: 'tue-sat,sun-mon',
  },
  { title: 'zero step', text: inPolicy('budget 0 during "*/0 * * * *" for 1h'), code: 'KPOL2030', token: '0', nth: 2 },
  { title: 'empty schedule', text: inPolicy('budget 0 during "" for 1h'), code: 'KPOL2031', token: '""' },
  {
    title: 'a value in an escaped schedule: the whole literal, fixed as a whole',
    text: inPolicy('budget 0 during "0 9 * * mon-fry,\\\\" for 1h'),
    code: 'KPOL2027',
    token: '"0 9 * * mon-fry,\\\\"',
    fix: '"0 9 * * mon-fri,\\\\"',
  },
  {
    title: 'unknown named schedule',
    text: `schedule nightly = "0 1 * * *" for 1h\n${inPolicy('budget 0 during nighly')}`,
    code: 'KPOL2009',
    token: 'nighly',
    help: 'did you mean `nightly`?',
    fix: 'nightly',
  },
  {
    title: 'schedule declared twice',
    text:
      `schedule nightly = "0 1 * * *" for 1h\nschedule nightly = "0 2 * * *" for ` +
      `1h\n${inPolicy('budget 0 during nightly')}`,
    code: 'KPOL2024',
    token: 'nightly',
    nth: 2,
  },
  { title: 'window without duration', text: inPolicy('budget 0 during "@daily"'), code: 'KPOL2016', token: '"@daily"' },
  {
    title: 'named schedule without duration',
    text: `schedule nightly = "@daily"\n${inPolicy('budget 0 during nightly')}`,
    code: 'KPOL2016',
    token: 'nightly',
    nth: 2,
  },
  {
    title: 'bad cron in a declaration',
    text: `schedule n = "0 0 * * 7" for 1h\n${inPolicy('budget 0 during n')}`,
    code: 'KPOL2006',
    token: '7',
  },
  {
    title: 'unknown time zone on a window',
    text: inPolicy('budget 0 during "@daily" for 1h in "Europe/Berln"'),
    code: 'KPOL2026',
    token: '"Europe/Berln"',
    help: 'did you mean `Europe/Berlin`?',
    fix: '"Europe/Berlin"',
  },
  {
    title: 'unknown policy time zone',
    text: inPolicy('timezone "Mars/Olympus"', 'budget 1'),
    code: 'KPOL2026',
    token: '"Mars/Olympus"',
    help: 'use an IANA name such as `Europe/Berlin` or `UTC`',
  },
  {
    title: 'unknown freeze time zone',
    text: inPolicy('freeze from "2026-12-20 00:00" to "2026-12-21 00:00" in "Europe/Berln"'),
    code: 'KPOL2026',
    token: '"Europe/Berln"',
    fix: '"Europe/Berlin"',
  },
  {
    title: 'invalid timestamp',
    text: inPolicy('freeze from "2026-02-30 00:00" to "2026-03-02 00:00"'),
    code: 'KPOL2014',
    token: '"2026-02-30 00:00"',
  },
  {
    title: 'not a timestamp',
    text: inPolicy('freeze from "next monday" to "2026-03-02 00:00"'),
    code: 'KPOL2014',
    token: '"next monday"',
  },
  {
    title: 'empty freeze range',
    text: inPolicy('freeze from "2026-03-02 00:00" to "2026-03-01 00:00"'),
    code: 'KPOL2015',
    token: '"2026-03-01 00:00"',
  },
  {
    title: 'zero-length freeze',
    text: inPolicy('freeze from "2026-03-02T00:00:00Z" to "2026-03-02 01:00" in "Europe/Berlin"'),
    code: 'KPOL2015',
    token: '"2026-03-02 01:00"',
  },
  {
    title: 'invalid label key',
    text: inPolicy('pods where Example.com/app = "x" disruptable only during "@daily" for 1h'),
    code: 'KPOL2019',
    token: 'Example.com/app',
  },
  {
    title: 'invalid node label key',
    text: inPolicy('window w blocks Drifted on nodes where a/b/c in (x) during "@daily" for 1h'),
    code: 'KPOL2019',
    token: 'a/b/c',
  },
  {
    title: 'invalid label value',
    text: inPolicy('pods where app = "has space" disruptable only during "@daily" for 1h'),
    code: 'KPOL2025',
    token: '"has space"',
  },
  {
    title: 'second consolidate',
    text: inPolicy('consolidate when empty', 'consolidate when balanced'),
    code: 'KPOL2010',
    token: 'consolidate when balanced',
  },
  {
    title: 'second expire',
    text: inPolicy('expire after 720h', 'expire never'),
    code: 'KPOL2010',
    token: 'expire never',
  },
  {
    title: 'second termination grace',
    text: inPolicy('termination grace 1h', 'termination grace 2h'),
    code: 'KPOL2010',
    token: 'termination grace 2h',
  },
  {
    title: 'second timezone',
    text: inPolicy('timezone "UTC"', 'timezone "Europe/Berlin"'),
    code: 'KPOL2010',
    token: 'timezone "Europe/Berlin"',
  },
  {
    title: 'policy declared twice',
    text: 'policy a for nodepool x {\n}\npolicy a for nodepool y {\n}\n',
    code: 'KPOL2011',
    token: 'a',
    nth: 2,
  },
  {
    title: 'NodePool in two policies',
    text: 'policy a for nodepool first, shared {\n}\npolicy b for nodepool shared {\n}\n',
    code: 'KPOL2012',
    token: 'shared',
    nth: 2,
  },
  {
    title: 'window name twice',
    text: inPolicy(
      'window maint blocks Drifted during "@daily" for 1h',
      'window maint blocks Empty during "@daily" for 1h',
    ),
    code: 'KPOL2022',
    token: 'maint',
    nth: 2,
  },
  {
    title: 'more than 50 budgets',
    text: inPolicy(...Array.from({ length: 51 }, (_, i) => `budget ${i + 1}`)),
    code: 'KPOL2017',
    token: 'budget 51',
  },
];

describe('checker errors', () => {
  it.each(rows)('$title → $code', ({ text, code, token, nth, help, fix }) => {
    const found = diagnosticsOf(text).filter((d) => d.code === code);
    expect(found, JSON.stringify(diagnosticsOf(text), null, 1)).toHaveLength(1);
    const d = found[0];
    expect(d.severity).toBe('error');
    expect(at(d)).toBe(positionOf(text, token, nth));
    expect(covered(text, d)).toBe(token);
    if (help instanceof RegExp) expect(d.help).toMatch(help);
    else if (help !== undefined) expect(d.help).toBe(help);
    if (fix !== undefined) expect(d.fix).toBe(fix);
  });

  it('reports nothing else for a clean policy', () => {
    const text = inPolicy(
      'consolidate when empty or underutilized after 5m',
      'budget 10%',
      'budget 0 for Underutilized during "@daily" for 10m',
    );
    expect(diagnosticsOf(text)).toEqual([]);
  });

  it('accepts Expired with graceful expiration', () => {
    expect(diagnosticsOf(inPolicy('expire after 720h gracefully', 'budget 5'))).toEqual([]);
  });

  it('points related information at the first occurrence', () => {
    const text = inPolicy('budget 5 for Empty, Empty');
    const [d] = diagnosticsOf(text).filter((x) => x.code === 'KPOL2021');
    expect(d.related?.[0].message).toBe('first written here');
    expect(d.related?.[0].range.start.offset).toBe(text.indexOf('Empty'));
  });
});
