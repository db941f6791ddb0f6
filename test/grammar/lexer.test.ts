// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { tokenize, unquote } from '../../grammar/lexer.js';
import { KEYWORDS, kw } from '../../grammar/tokens.js';

const kinds = (text: string): string[] => tokenize(text).tokens.map((t) => `${t.tokenType.name}:${t.image}`);

describe('tokenize', () => {
  // Keywords are found among names after matching (lexer.ts): a word is a keyword exactly when
  // the whole word, as matched by `Name`, is spelt as one; any longer name containing it is not.
  it('lexes every keyword alone, and as part of a longer name as that name', () => {
    for (const word of KEYWORDS) {
      const keyword = kw[word]!.name;
      expect(kinds(word)).toEqual([`${keyword}:${word}`]);
      expect(kinds(`${word}(`)).toEqual([`${keyword}:${word}`, 'LParen:(']);
      expect(kinds(`${word}"x"`)).toEqual([`${keyword}:${word}`, 'StringLit:"x"']);
      for (const name of [
        `${word}x`,
        `${word}-a`,
        `${word}.b`,
        `${word}/c`,
        `${word}_1`,
        `x${word}`,
        word.toUpperCase(),
      ])
        expect(kinds(name)).toEqual([`Name:${name}`]);
      expect(kinds(word.slice(0, -1))).not.toEqual([`${keyword}:${word.slice(0, -1)}`]);
    }
  });

  it.each([
    ['windows-pool', 'Name:windows-pool'],
    ['never-x', 'Name:never-x'],
    ['nodepools', 'KwNodepools:nodepools'],
    ['nodepool', 'KwNodepool:nodepool'],
    ['notin', 'KwNotin:notin'],
    ['not', 'KwNot:not'],
    ['input', 'Name:input'],
    ['in', 'KwIn:in'],
    ['topology.kubernetes.io/zone', 'Name:topology.kubernetes.io/zone'],
    ['karpenter.sh/capacity-type', 'Name:karpenter.sh/capacity-type'],
    ['Drifed', 'Name:Drifed'],
  ])('lexes %s as one token', (text, expected) => {
    expect(kinds(text)).toEqual([expected]);
  });

  it.each([
    ['30s', 'Duration:30s'],
    ['5m', 'Duration:5m'],
    ['1h30m', 'Duration:1h30m'],
    ['1h30m0s', 'Duration:1h30m0s'],
    ['720h', 'Duration:720h'],
    ['7d', 'Duration:7d'],
    ['250ms', 'Duration:250ms'],
    ['20%', 'Percent:20%'],
    ['5', 'NumberLit:5'],
    ['1.5', 'NumberLit:1.5'],
    ['5mx', 'Name:5mx'],
    ['2a', 'Name:2a'],
    ['10.0.0.1', 'Name:10.0.0.1'],
  ])('lexes the literal %s', (text, expected) => {
    expect(kinds(text)).toEqual([expected]);
  });

  it('keeps punctuation apart from names', () => {
    expect(kinds('a=b,c!=d (e) !f == {}')).toEqual([
      'Name:a',
      'Equals:=',
      'Name:b',
      'Comma:,',
      'Name:c',
      'NotEquals:!=',
      'Name:d',
      'LParen:(',
      'Name:e',
      'RParen:)',
      'Bang:!',
      'Name:f',
      'DoubleEquals:==',
      'LCurly:{',
      'RCurly:}',
    ]);
  });

  it('reads strings with escapes and unquotes them', () => {
    const { tokens, diagnostics } = tokenize('"a \\"b\\" \\\\ c"');
    expect(diagnostics).toEqual([]);
    expect(tokens).toHaveLength(1);
    expect(unquote(tokens[0]!.image)).toBe('a "b" \\ c');
  });

  it('keeps comments aside with their ranges, and `//` inside names starts a comment', () => {
    const { tokens, comments } = tokenize('a//b\n# two\nc # three');
    expect(tokens.map((t) => t.image)).toEqual(['a', 'c']);
    expect(comments.map((c) => [c.text, c.range.start.line, c.range.start.character, c.range.end.offset])).toEqual([
      ['//b', 0, 1, 4],
      ['# two', 1, 0, 10],
      ['# three', 2, 2, 20],
    ]);
  });

  it('reports an unterminated string at its exact range and keeps it as a string', () => {
    const { tokens, diagnostics } = tokenize('timezone "Europe/Berlin\nbudget 5');
    expect(tokens.map((t) => t.tokenType.name)).toEqual(['KwTimezone', 'UnterminatedString', 'KwBudget', 'NumberLit']);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      code: 'KPOL1002',
      range: { start: { line: 0, character: 9, offset: 9 }, end: { line: 0, character: 23, offset: 23 } },
    });
    expect(unquote(tokens[1]!.image)).toBe('Europe/Berlin');
  });

  it('reports a run of unexpected characters once, with its range', () => {
    const { tokens, diagnostics } = tokenize('budget\r\n  5 @@ x');
    expect(tokens.map((t) => t.image)).toEqual(['budget', '5', 'x']);
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'KPOL1001',
        message: 'unexpected character `@@`',
        range: { start: { line: 1, character: 4, offset: 12 }, end: { line: 1, character: 6, offset: 14 } },
      }),
    ]);
  });
});
