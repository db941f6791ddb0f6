// SPDX-License-Identifier: Apache-2.0
// "Did you mean" for keywords: the parser's hints name only words the grammar allows at the spot.
import type { IToken } from 'chevrotain';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { statementOffsetOf } from '../../grammar/keyword-hints.js';
import { tokenize } from '../../grammar/lexer.js';
import { parse } from '../../grammar/parse.js';
import { STATEMENT_KEYWORDS } from '../../grammar/tokens.js';

const body = (...lines: string[]) =>
  ['policy p for nodepool default {', ...lines.map((l) => `  ${l}`), '}', ''].join('\n');

interface Row {
  text: string;
  code: string;
  token: string; // the text the diagnostic's range covers
  fix?: string; // undefined: no hint
}

const rows: Row[] = [
  { text: body('budjet 10%'), code: 'KPOL1005', token: 'budjet', fix: 'budget' },
  { text: body('budgte 10%'), code: 'KPOL1005', token: 'budgte', fix: 'budget' },
  { text: body('Budget 10%'), code: 'KPOL1005', token: 'Budget', fix: 'budget' },
  { text: body('consolidation when empty'), code: 'KPOL1005', token: 'consolidation', fix: 'consolidate' },
  { text: body('drain everything now'), code: 'KPOL1005', token: 'drain' },
  { text: body('budget 10% fro Drifted'), code: 'KPOL1003', token: 'fro', fix: 'for' },
  { text: body('budget 2 Drifted'), code: 'KPOL1003', token: 'Drifted', fix: 'for Drifted' },
  { text: body('expire after 720h gracefuly'), code: 'KPOL1003', token: 'gracefuly', fix: 'gracefully' },
  { text: body('allow 3 Drifted during "@daily" for 1h'), code: 'KPOL1003', token: 'during', fix: 'only during' },
  { text: body('allow 3 Drifted only durring "@daily" for 1h'), code: 'KPOL1003', token: 'durring', fix: 'during' },
  { text: body('consolidate when empy'), code: 'KPOL1003', token: 'empy', fix: 'empty' },
  {
    text: body('consolidate when empty or underutilised'),
    code: 'KPOL1003',
    token: 'underutilised',
    fix: 'underutilized',
  },
  { text: body('consolidate when sometimes'), code: 'KPOL1003', token: 'sometimes' },
  { text: body('termination grase 1h'), code: 'KPOL1003', token: 'grase', fix: 'grace' },
  { text: body('window w blokcs Drifted'), code: 'KPOL1003', token: 'blokcs', fix: 'blocks' },
  {
    text: body('pods where app = x disruptible only during "@daily" for 1h'),
    code: 'KPOL1003',
    token: 'disruptible',
    fix: 'disruptable',
  },
  { text: 'polcy p for nodepool a {\n}\n', code: 'KPOL1003', token: 'polcy', fix: 'policy' },
  { text: 'policy p for nodepol a {\n}\n', code: 'KPOL1003', token: 'nodepol', fix: 'nodepool' },
  { text: 'schedul n = "@daily" for 1h\n', code: 'KPOL1003', token: 'schedul', fix: 'schedule' },
];

describe('keyword hints', () => {
  it.each(rows)('$token in $text', ({ text, code, token, fix }) => {
    const { diagnostics } = parse(text);
    expect(diagnostics).toHaveLength(1);
    const [d] = diagnostics;
    expect(d!.code).toBe(code);
    expect(text.slice(d!.range.start.offset, d!.range.end.offset)).toBe(token);
    expect(d!.fix).toBe(fix);
    if (fix !== undefined) {
      expect(d!.help).toBe(`did you mean \`${fix}\`?`);
      const fixed = text.slice(0, d!.range.start.offset) + fix + text.slice(d!.range.end.offset);
      expect(parse(fixed).diagnostics).toEqual([]);
    }
  });

  it('reports each misspelt statement of a run of unknown lines, but not a continuation line', () => {
    const { diagnostics } = parse(body('budjet 10%', 'budgte 5 for Drifted', '  for Empty', 'budget 1'));
    expect(diagnostics.map((d) => [d.range.start.line + 1, d.fix])).toEqual([
      [2, 'budget'],
      [3, 'budget'],
    ]);
  });

  it('reports one error per statement: what recovery trips over after its guess is not reported', () => {
    const inserted = parse(body('pods where app = x in namespce ml disruptable only during "@daily" for 1h'));
    expect(inserted.diagnostics.map((d) => d.message)).toEqual(['expected `namespace` but found `namespce`']);
    const leftOver = parse(body('allow 3 Drifted only durring "0 1 * * *" for 1h', 'window w blokcs Drifted'));
    expect(leftOver.diagnostics.map((d) => d.message)).toEqual([
      'expected `during` but found `durring`',
      'expected `blocks` but found `blokcs`',
    ]);
  });

  it('records what did not parse, with the names written in it', () => {
    const { value } = parse(body('budget 5', 'budjet 0 during nightly'));
    expect(value.unparsed?.map((u) => [u.range.start.line + 1, u.words])).toEqual([[3, ['budjet', 'nightly']]]);
    expect(parse(body('budget 5')).value.unparsed).toBeUndefined();
  });
});

describe('statementOffsetOf', () => {
  const STARTS = STATEMENT_KEYWORDS;
  /** The definition, looking back from each token: what the one-pass index must agree with. */
  function naive(tokens: IToken[], index: number): number | undefined {
    const word = tokens[index]!.image;
    if (STARTS.includes(word) || word === 'policy' || word === 'schedule' || word === '}') return undefined;
    for (let j = index - 1; j >= 0; j--) {
      const w = tokens[j]!.image;
      if (w === '{' || w === '}') return tokens[j + 1]!.startOffset;
      if (STARTS.includes(w)) return tokens[j]!.startOffset;
      if (w === 'policy' || w === 'schedule') return undefined;
    }
    return undefined;
  }

  it('agrees with looking back from each token, on token soups of keywords and braces', () => {
    const words = ['policy', 'schedule', '{', '}', 'budget', 'window', 'pods', 'for', 'x', '1', ',', 'during'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...words), { maxLength: 40 }), (list) => {
        const { tokens } = tokenize(list.join(' '));
        tokens.forEach((t, i) => expect(statementOffsetOf(tokens, t)).toBe(naive(tokens, i)));
      }),
      { seed: 13, numRuns: 300 },
    );
  });
});
