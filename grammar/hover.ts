// SPDX-License-Identifier: Apache-2.0
// What hovering a place in a .kpol text shows: the documentation of the keyword or disruption
// reason under it (keyword-docs.ts). The word is found with the lexer, so the same letters
// inside a string or a comment show nothing. Used by `kpol lsp`.
import type { Range } from './ast.js';
import { KEYWORD_DOCS, REASON_DOCS } from './keyword-docs.js';
import { tokenize } from './lexer.js';

export interface WordDoc {
  word: string;
  range: Range;
  /** Markdown: the word in bold, then its documentation. */
  markdown: string;
}

const docOf = (word: string): string | undefined =>
  Object.hasOwn(KEYWORD_DOCS, word)
    ? KEYWORD_DOCS[word]
    : Object.hasOwn(REASON_DOCS, word)
      ? REASON_DOCS[word]
      : undefined;

/** The documentation of the word at `offset` (inside it or just after its last character). */
export function wordDocAt(text: string, offset: number): WordDoc | undefined {
  const { tokens, lines } = tokenize(text);
  // A token starting at `offset` wins over one ending just before it (`budget(` at the `(`).
  const token =
    tokens.find((t) => t.startOffset <= offset && offset <= t.endOffset!) ??
    tokens.find((t) => t.endOffset! + 1 === offset);
  if (!token) return undefined;
  const doc = docOf(token.image);
  if (doc === undefined) return undefined;
  return { word: token.image, range: lines.tokenRange(token), markdown: `**${token.image}**\n\n${doc}` };
}
