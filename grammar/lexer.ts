// SPDX-License-Identifier: Apache-2.0
// tokenize: text to tokens. Lexer problems become diagnostics; the token stream stays usable
// (an unterminated string is still a string token, unknown characters are dropped).
import { Lexer, tokenMatcher, type IToken, type TokenType } from 'chevrotain';
import type { Comment } from './ast.js';
import { MAX_DIAGNOSTICS } from './diagnostic-limit.js';
import { diagnostic, format, type Diagnostic } from './diagnostic.js';
import { fastLex, toTokens } from './fast-lex.js';
import { MESSAGES } from './messages.js';
import { LineIndex } from './positions.js';
import { allTokens, KEYWORD_OF_WORD, Name, PercentFirst, SpacedPercent, UnterminatedString } from './tokens.js';

/** The output of `tokenize`: parser tokens in order, comments aside, and lexer diagnostics. */
export interface Tokenized {
  tokens: IToken[];
  comments: Comment[];
  /** The first MAX_DIAGNOSTICS lexer diagnostics of each kind, in source order. */
  diagnostics: Diagnostic[];
  /** Lexer diagnostics not built, past that limit. */
  omitted: number;
  lines: LineIndex;
}

/**
 * Chevrotain's offset-only tracking leaves out `endOffset`, which the parser's node locations
 * need; full tracking would add it but also count lines and columns, several times slower
 * (positions.ts does that only for the offsets that end up in ranges). A `Name` spelt exactly as
 * a keyword becomes that keyword here (tokens.ts `makeKeyword`).
 */
class OffsetLexer extends Lexer {
  /** Tokens the lexer reports (an unterminated string, a misplaced `%`), set aside as they are made. */
  flagged: IToken[] = [];

  createOffsetOnlyToken(
    image: string,
    startOffset: number,
    tokenTypeIdx: number,
    tokenType: TokenType,
    _line: number,
    _column: number,
    length: number,
  ): IToken {
    if (tokenType === Name) {
      const keyword = KEYWORDS_BY_WORD.get(image);
      if (keyword !== undefined) {
        tokenType = keyword.type;
        tokenTypeIdx = keyword.type.tokenTypeIdx!;
        // The one shared string of the word: the copy just cut from the text dies at once instead
        // of living, and being copied by the collector, as long as the token (more than half the tokens are).
        image = keyword.word;
      }
    }
    const token = { image, startOffset, endOffset: startOffset + length - 1, tokenTypeIdx, tokenType };
    if (FLAGGED.has(tokenType)) this.flagged.push(token);
    return token;
  }
}

const KEYWORDS_BY_WORD: ReadonlyMap<string, { type: TokenType; word: string }> = new Map(
  [...KEYWORD_OF_WORD].map(([word, type]) => [word, { type, word }]),
);

const FLAGGED: ReadonlySet<TokenType> = new Set([UnterminatedString, SpacedPercent, PercentFirst]);

const lexer = new OffsetLexer(allTokens, { positionTracking: 'onlyOffset', ensureOptimizations: true });

const MAX_SHOWN_CHARS = 20;

/** How `tokenize` works; the tokens are the same either way. */
export interface TokenizeOptions {
  /**
   * Try the one-loop lexer of fast-lex.ts first (the default), for a text with nothing to report;
   * false always runs Chevrotain's lexer. The equality test compares the two.
   */
  fastLex?: boolean;
}

/** Splits `text` into tokens. Never throws on user input. */
export function tokenize(text: string, options: TokenizeOptions = {}): Tokenized {
  const lines = new LineIndex(text);
  const fast = options.fastLex === false ? undefined : fastLex(text);
  if (fast)
    return { tokens: toTokens(fast), comments: toComments(fast.comments, lines), diagnostics: [], omitted: 0, lines };
  lexer.flagged = [];
  const result = lexer.tokenize(text);
  const flagged = lexer.flagged;
  lexer.flagged = [];
  const diagnostics: Diagnostic[] = [];
  // Both lists below come in source order, so the first MAX_DIAGNOSTICS of each hold the first
  // MAX_DIAGNOSTICS of both together; the rest are only counted (parse.ts merges and limits).
  const errorCount = Math.min(result.errors.length, MAX_DIAGNOSTICS);
  for (const err of result.errors.slice(0, errorCount)) {
    const chars = text.slice(err.offset, err.offset + err.length);
    const shown = chars.length > MAX_SHOWN_CHARS ? `${chars.slice(0, MAX_SHOWN_CHARS)}…` : chars;
    diagnostics.push(
      diagnostic('unexpectedCharacter', lines.range(err.offset, err.offset + err.length), { char: shown }),
    );
  }
  let omitted = result.errors.length - errorCount;
  let fromTokens = 0;
  for (const token of flagged) {
    const unterminated = tokenMatcher(token, UnterminatedString);
    if (fromTokens++ >= MAX_DIAGNOSTICS) omitted++;
    else if (unterminated) diagnostics.push(diagnostic('unterminatedString', lines.tokenRange(token)));
    else diagnostics.push(percentSlip(token, lines));
  }
  const comments = toComments(result.groups['comments'] ?? [], lines);
  return { tokens: result.tokens, comments, diagnostics, omitted, lines };
}

/** The `comments` group as AST comments. */
export function toComments(tokens: IToken[], lines: LineIndex): Comment[] {
  return tokens.map((token) => ({ kind: 'Comment', text: token.image, range: lines.tokenRange(token) }));
}

/** `10 %` or `%10`, with the quick fix `10%`. */
function percentSlip(token: IToken, lines: LineIndex): Diagnostic {
  const fixed = `${percentDigits(token.image)}%`;
  const name = tokenMatcher(token, SpacedPercent) ? 'spacedPercent' : 'percentFirst';
  const help = format(MESSAGES.didYouMean.text, { suggestion: fixed });
  return diagnostic(name, lines.tokenRange(token), { text: token.image }, { help, fix: fixed });
}

/** The number of a percentage token as written, without `%` and blanks (`10 %` → `10`). */
export function percentDigits(image: string): string {
  return image.replace(/[%\s]/g, '');
}

/** The unescaped value of a string token (`\"` and `\\`; any other escape is kept as written). */
export function unquote(image: string): string {
  const closed = image.length >= 2 && image.endsWith('"') && !isEscaped(image, image.length - 1);
  const body = image.slice(1, closed ? -1 : undefined);
  return body.includes('\\') ? body.replace(/\\(["\\])/g, '$1') : body;
}

function isEscaped(image: string, index: number): boolean {
  let backslashes = 0;
  for (let i = index - 1; i >= 0 && image[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 1;
}
