// SPDX-License-Identifier: Apache-2.0
// The TextMate grammar for .kpol (VS Code and other TextMate-based editors highlight with it;
// the language server gives everything else), generated from the same rules as the browser
// editor's Monarch definition so that neither can drift from the lexer. Written to
// editor/vscode/syntaxes/kpol.tmLanguage.json; test/grammar/textmate.test.ts keeps the file equal
// to this and checks that it classifies the examples as Monarch does.
import { kpolMonarch } from './monarch.js';

export interface TextMatePattern {
  name?: string;
  match: string;
}

export interface TextMateGrammar {
  $schema: string;
  name: string;
  scopeName: string;
  fileTypes: string[];
  patterns: TextMatePattern[];
}

/** Monarch token kinds and the TextMate scopes themes colour them by. */
export const SCOPE_OF: Record<string, string | undefined> = {
  comment: 'comment.line.kpol',
  string: 'string.quoted.double.kpol',
  'string.invalid': 'invalid.illegal.unterminated-string.kpol',
  'number.duration': 'constant.numeric.duration.kpol',
  'number.percent': 'constant.numeric.percent.kpol',
  number: 'constant.numeric.kpol',
  keyword: 'keyword.control.kpol',
  type: 'support.type.reason.kpol',
  identifier: 'variable.other.kpol',
  operator: 'keyword.operator.kpol',
  delimiter: 'punctuation.separator.kpol',
  '@brackets': 'punctuation.section.braces.kpol',
};

// TextMate tries every pattern and takes the leftmost match, so a word list needs boundaries of
// its own: a kpol name also holds `-`, `.` and `/`, which `\b` would treat as breaks.
const NAME_CHAR = '[A-Za-z0-9_./-]';
const words = (list: readonly string[]) =>
  `(?<!${NAME_CHAR})(?:${[...list].sort((a, b) => b.length - a.length).join('|')})(?!${NAME_CHAR})`;

export function kpolTextMate(): TextMateGrammar {
  const patterns: TextMatePattern[] = [];
  for (const [re, action] of kpolMonarch.tokenizer['root']!) {
    if (typeof action !== 'string') {
      // The name rule: keywords, then reasons, then any other name.
      patterns.push({ name: SCOPE_OF.keyword, match: words(kpolMonarch.keywords) });
      patterns.push({ name: SCOPE_OF.type, match: words(kpolMonarch.reasons) });
      patterns.push({ name: SCOPE_OF.identifier, match: re.source });
      continue;
    }
    if (action === 'white') continue;
    const scope = SCOPE_OF[action];
    if (!scope) throw new Error(`no TextMate scope for the Monarch token ${action}`);
    patterns.push({ name: scope, match: re.source });
  }
  return {
    $schema: 'https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json',
    name: 'kpol',
    scopeName: 'source.kpol',
    fileTypes: ['kpol'],
    patterns,
  };
}
