// SPDX-License-Identifier: Apache-2.0
// The fast path of `parse` (grammar/fast-parse.ts) must give exactly what the Chevrotain path
// gives, key order included (goldens print the AST), and must take every file that path parses
// with nothing to report; for any other file it must step aside.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastLex } from '../../grammar/fast-lex.js';
import { fastParse } from '../../grammar/fast-parse.js';
import { toComments } from '../../grammar/lexer.js';
import { parse } from '../../grammar/parse.js';
import { LineIndex } from '../../grammar/positions.js';
import { generatePolicy } from '../bench/generate.js';
import { policyFileArb } from '../fuzz/policy-arbitraries.js';
import { mutatedPolicyArb } from '../fuzz/policy-mutations.js';
import { mutatedText, RARE_BLANK, validText } from './support/arbitraries.js';
import { kpolFiles } from './support/kpol-files.js';

const RUNS = { numRuns: 200 };

const files = [
  ...kpolFiles('../golden/'),
  ...kpolFiles('../../rules/examples/'),
  ['generated', generatePolicy(1200)] as const,
  [
    'every statement form',
    [
      'schedule nightly = "0 1 * * *" for 4h in "Europe/Berlin"',
      'schedule plain = "@daily"',
      'policy a for nodepools where tier in (web, "x y", 5, 1h), !spot and zone notin (a) , k exists, j not exists {',
      '  consolidate never',
      '  expire never',
      '  timezone "Europe/Paris"',
      '}',
      'policy b for nodepool p1, p2 {',
      '  consolidate when balanced',
      '  consolidate after never',
      '  consolidate when empty after 5m',
      '  expire after 720h gracefully',
      '  termination grace 24h',
      '  budget 10% per 1h for Empty, Drifted per reason on nodes where a = b during nightly',
      '  budget 0 during "@daily" for 10m in "UTC"',
      '  budget 3 per reason',
      '  allow 2 only during plain',
      '  allow 1 Drifted only during "0 2 * * *" for 1h',
      '  freeze Drifted from "2026-12-24T00:00" to "2026-12-27T00:00" in "Europe/Berlin"',
      '  freeze from "2026-12-24T00:00" to "2026-12-27T00:00"',
      '  pods where app == x in namespace n1, n2 disruptable never during "0 2 * * sat" for 6h',
      '  pods in namespace kube-system never Drifted, Expired',
      '  pods where app != y disruptable only during nightly',
      '  window w blocks Drifted on nodes where z = a during "0 9 * * 1-5" for 8h, nightly',
      '  window v blocks Empty',
      '}',
      'cluster budget 5 for Drifted during nightly on nodepools p1, p2',
      'cluster budget 10%',
    ].join('\n'),
  ] as const,
];

/** Files with one mistake each, some of which only lowering finds: the fast path must decline them all. */
const mistakes = [
  'budget 1.5',
  'budget 1.5%',
  'budget 99999999999999999999',
  'allow 12345678901234567890% only during "@daily"',
  'budget 1 fro Empty',
  'frobnicate the nodes',
  'budget 5 per 5',
  'pods where app in namespace x never Drifted',
  'consolidate when empty or',
  'window w blocks Drifted during "x" for Empty',
].map((statement) => [statement, `policy p for nodepool a {\n  ${statement}\n}\n`] as const);

/** The two paths' results, as the goldens would print them (key order counts). */
function bothPaths(text: string): { fast: string; slow: string; taken: boolean; clean: boolean } {
  const slow = parse(text, { fastPath: false });
  // `parse` tries the fast parser only when the fast lexer took the text (fast-lex.test.ts).
  const lexed = fastLex(text);
  const lines = new LineIndex(text);
  return {
    fast: JSON.stringify(parse(text)),
    slow: JSON.stringify(slow),
    taken: lexed !== undefined && fastParse(lexed, toComments(lexed.comments, lines), lines) !== undefined,
    clean: slow.diagnostics.length === 0 && slow.omitted === undefined,
  };
}

describe('the fast path of parse', () => {
  it.each(files)('%s: the same AST and diagnostics as the Chevrotain path', (_name, text) => {
    const { fast, slow, taken, clean } = bothPaths(text);
    expect(fast).toBe(slow);
    // Every file that parses cleanly takes the fast path, or the bench measures the slow one.
    expect(taken).toBe(clean);
  });

  it.each(mistakes)('declines `%s`, which the Chevrotain path reports', (_name, text) => {
    const { fast, slow, taken } = bothPaths(text);
    expect(fast).toBe(slow);
    expect(taken).toBe(false);
    expect(parse(text).diagnostics).not.toEqual([]);
  });

  it('covers files with and without mistakes', () => {
    const taken = files.filter(([, text]) => bothPaths(text).taken).length;
    expect(taken).toBeGreaterThan(20);
    expect(files.length - taken).toBeGreaterThan(3);
  });

  it('agrees with the Chevrotain path on generated and mutated text', () => {
    let taken = 0;
    let declined = 0;
    const agree = (text: string) => {
      const r = bothPaths(text);
      expect(r.fast).toBe(r.slow);
      if (!RARE_BLANK.test(text)) expect(r.taken).toBe(r.clean);
      else if (!r.clean) expect(r.taken).toBe(false);
      if (r.taken) taken++;
      else declined++;
    };
    fc.assert(fc.property(validText, agree), RUNS);
    fc.assert(fc.property(policyFileArb, agree), RUNS);
    fc.assert(fc.property(mutatedText, agree), RUNS);
    fc.assert(fc.property(mutatedPolicyArb, agree), RUNS);
    // Both outcomes were exercised, not one of them only.
    expect(taken).toBeGreaterThan(RUNS.numRuns);
    expect(declined).toBeGreaterThan(RUNS.numRuns / 2);
  });
});
