// SPDX-License-Identifier: Apache-2.0
// The fast path of `tokenize` (grammar/fast-lex.ts) must make exactly the tokens Chevrotain's lexer
// makes (type, image, offsets, order, and the comments aside) for every text it takes, and must take
// every text that lexer has nothing to report on; for any other text it must step aside.
import fc from 'fast-check';
import type { IToken } from 'chevrotain';
import { describe, expect, it } from 'vitest';
import { fastLex } from '../../grammar/fast-lex.js';
import { tokenize, type Tokenized } from '../../grammar/lexer.js';
import { KEYWORDS } from '../../grammar/tokens.js';
import { generatePolicy } from '../bench/generate.js';
import { policyFileArb } from '../fuzz/policy-arbitraries.js';
import { mutatedPolicyArb } from '../fuzz/policy-mutations.js';
import { mutatedText, RARE_BLANK, validText } from './support/arbitraries.js';
import { kpolFiles } from './support/kpol-files.js';

const files = [
  ...kpolFiles('../golden/'),
  ...kpolFiles('../../rules/examples/'),
  ['generated', generatePolicy(1200)] as const,
];

/** A token as the parser sees it: every own key (the same keys, in the same order) with the type by name. */
const shown = (t: IToken) => JSON.stringify(Object.entries(t).map(([k, v]) => [k, k === 'tokenType' ? v.name : v]));

/** Both lexers' output, printed; `taken` when the fast one did not step aside. */
function bothLexers(text: string): { fast: string; slow: string; taken: boolean; clean: boolean } {
  const print = (r: Tokenized) =>
    JSON.stringify({ tokens: r.tokens.map(shown), comments: r.comments, diagnostics: r.diagnostics, o: r.omitted });
  const slow = tokenize(text, { fastLex: false });
  return {
    fast: print(tokenize(text)),
    slow: print(slow),
    taken: fastLex(text) !== undefined,
    clean: slow.diagnostics.length === 0 && slow.omitted === 0,
  };
}

/** Asserts the two lexers agree, and that the fast one took the text if it has nothing to report. */
function agree(text: string): boolean {
  const r = bothLexers(text);
  expect(r.fast).toBe(r.slow);
  if (!RARE_BLANK.test(text)) expect(r.taken).toBe(r.clean);
  else if (!r.clean) expect(r.taken).toBe(false);
  return r.taken;
}

/**
 * Short texts from the characters where the token patterns meet: digits beside units, `%`, `.`,
 * `/` and `-` inside names, quotes and escapes, comment starts, line breaks and keywords.
 */
const piece = fc.constantFrom(
  ...'0123456789msdhx%. \t\n\r/-_"\\#=!{}(),aZé\u00a0'.split(''),
  '5m',
  '1h30m',
  '10%',
  '10 %',
  '%10',
  '1.5',
  '//',
  ...KEYWORDS,
);
const tricky = fc.array(piece, { maxLength: 14 }).map((ps) => ps.join(''));

describe('the fast path of tokenize', () => {
  it.each(files)('%s: the same tokens as the Chevrotain lexer', (_name, text) => {
    agree(text);
  });

  it('takes nearly every golden and example file', () => {
    const taken = files.filter(([, text]) => agree(text)).length;
    expect(taken).toBeGreaterThan(files.length - 5);
  });

  it.each([
    ['5m 5ms 5mx 1h30m 1h3 1.5 1.5.3 1. 10% 10%x 007 5m.x 3d/x 2s-1', true],
    ['a//b a/b //c\n#d\r\ne', true],
    ['"a\\"b" "" "x\\\\" == = != !', true],
    ['budget 10 % for Empty', false],
    ['budget %10', false],
    ['"unterminated\nnext', false],
    ['a / b', false],
    ['@daily', false],
    ['gpu\u00a0pool', false],
    ['# a\u00a0comment\n"a\u00a0string"', true],
  ] as const)('`%s`: taken %s, the same tokens either way', (text, taken) => {
    expect(agree(text)).toBe(taken);
  });

  it('grows its arrays past the first guess (a token per character)', () => {
    const text = `a,b${'(),{}=!'.repeat(2000)}"x"5m`;
    expect(agree(text)).toBe(true);
    expect(fastLex(text)!.count).toBe(tokenize(text, { fastLex: false }).tokens.length);
  });

  it('agrees with the Chevrotain lexer on generated, mutated and random text', () => {
    let taken = 0;
    let declined = 0;
    const count = (text: string) => {
      if (agree(text)) taken++;
      else declined++;
    };
    fc.assert(fc.property(validText, count), { numRuns: 200 });
    fc.assert(fc.property(policyFileArb, count), { numRuns: 200 });
    fc.assert(fc.property(mutatedText, count), { numRuns: 200 });
    fc.assert(fc.property(mutatedPolicyArb, count), { numRuns: 200 });
    fc.assert(fc.property(tricky, count), { numRuns: 3000 });
    // Both outcomes were exercised, not one of them only.
    expect(taken).toBeGreaterThan(1000);
    expect(declined).toBeGreaterThan(300);
  });
});
