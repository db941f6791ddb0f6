// SPDX-License-Identifier: Apache-2.0
// The Monaco Monarch definition for .kpol, generated from the lexer's token definitions so the
// editor's highlighting cannot drift from the grammar. Plain data: the editor passes it to
// `monaco.languages.setMonarchTokensProvider('kpol', kpolMonarch)`.
import {
  COMMENT_PATTERN,
  DURATION_PATTERN,
  KEYWORDS,
  NAME_PATTERN,
  NUMBER_PATTERN,
  PERCENT_PATTERN,
  REASONS,
  STRING_PATTERN,
} from './tokens.js';

/** The language id the editor registers. */
export const KPOL_LANGUAGE_ID = 'kpol';

/** A Monarch rule: `[regex, action]` or `[regex, action, next state]`. */
export type MonarchRule = [RegExp, string | { cases: Record<string, string> }] | [RegExp, string, string];

/** The subset of Monaco's `IMonarchLanguage` this definition uses. */
export interface MonarchLanguage {
  defaultToken: string;
  tokenPostfix: string;
  keywords: string[];
  reasons: string[];
  brackets: { open: string; close: string; token: string }[];
  tokenizer: Record<string, MonarchRule[]>;
}

// Monarch takes the first rule that matches, not the longest, so numeric patterns must not
// stop in the middle of a name such as `5mx` or `2a` (the lexer's `longer_alt`).
const NOT_IN_NAME = '(?![A-Za-z0-9_.\\-/])';

function wholeWord(pattern: RegExp): RegExp {
  return new RegExp(pattern.source + NOT_IN_NAME);
}

/** The Monarch language definition for .kpol. */
export const kpolMonarch: MonarchLanguage = {
  defaultToken: '',
  tokenPostfix: '.kpol',
  keywords: [...KEYWORDS].sort(),
  reasons: [...REASONS],
  brackets: [
    { open: '{', close: '}', token: 'delimiter.curly' },
    { open: '(', close: ')', token: 'delimiter.parenthesis' },
  ],
  tokenizer: {
    root: [
      [/[ \t\r\n]+/, 'white'],
      [new RegExp(COMMENT_PATTERN.source), 'comment'],
      [new RegExp(STRING_PATTERN.source), 'string'],
      [/"(?:[^"\\]|\\.)*$/, 'string.invalid'],
      [wholeWord(DURATION_PATTERN), 'number.duration'],
      [new RegExp(PERCENT_PATTERN.source), 'number.percent'],
      [wholeWord(NUMBER_PATTERN), 'number'],
      [
        new RegExp(NAME_PATTERN.source),
        { cases: { '@keywords': 'keyword', '@reasons': 'type', '@default': 'identifier' } },
      ],
      [/[{}()]/, '@brackets'],
      [/==|!=|=|!/, 'operator'],
      [/,/, 'delimiter'],
    ],
  },
};
