// SPDX-License-Identifier: Apache-2.0
// The fast path of `tokenize` for text the lexer has nothing to report: one loop over the
// characters that makes the same tokens Chevrotain's lexer makes from tokens.ts (same types,
// images, offsets, in the same order), without trying each pattern as a regular expression.
// Anything the lexer would report or that needs a closer look (an unterminated string, a `%`
// apart from its number, a character no token starts with, blanks other than ASCII ones) gives
// up, and `tokenize` runs Chevrotain's lexer from the start, which owns every lexer diagnostic.
// test/grammar/fast-lex.test.ts holds both equal on goldens, examples, generated and random text.
import type { IToken, TokenType } from 'chevrotain';
import {
  Bang,
  Comma,
  Comment,
  DoubleEquals,
  Duration,
  Equals,
  KEYWORD_OF_WORD,
  LCurly,
  LParen,
  Name,
  NotEquals,
  NumberLit,
  Percent,
  RCurly,
  RParen,
  StringLit,
} from './tokens.js';

/**
 * What Chevrotain's lexer gives, one typed array per field rather than an object per token: the
 * fast parser reads these directly, so a file of 10k lines makes no 60k token objects, and no
 * string for a keyword or a mark, for the collector to copy (`toTokens` makes the objects for
 * everything else). Token `i` has type `LEXED_TYPES[kinds[i]]` and covers `text[starts[i], ends[i])`.
 */
export class Lexed {
  count = 0;
  kinds: Uint8Array;
  starts: Int32Array;
  ends: Int32Array;
  /** The `comments` group, as Chevrotain makes it. */
  readonly comments: IToken[] = [];

  constructor(readonly text: string) {
    // A token and its blanks are rarely shorter than four characters; `add` grows the arrays otherwise.
    const capacity = (text.length >> 2) + 16;
    this.kinds = new Uint8Array(capacity);
    this.starts = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
  }

  add(kind: number, start: number, end: number): void {
    const i = this.count++;
    if (i === this.kinds.length) this.grow();
    this.kinds[i] = kind;
    this.starts[i] = start;
    this.ends[i] = end;
  }

  private grow(): void {
    const capacity = this.kinds.length * 2;
    const kinds = new Uint8Array(capacity);
    const starts = new Int32Array(capacity);
    const ends = new Int32Array(capacity);
    kinds.set(this.kinds);
    starts.set(this.starts);
    ends.set(this.ends);
    this.kinds = kinds;
    this.starts = starts;
    this.ends = ends;
  }

  /** Token `i`'s type. */
  type(i: number): TokenType {
    return LEXED_TYPES[this.kinds[i]!]!;
  }

  /** Token `i`'s text as the lexer gives it: a keyword's or a mark's is one shared string. */
  image(i: number): string {
    return SPELLING[this.kinds[i]!] ?? this.text.substring(this.starts[i]!, this.ends[i]!);
  }
}

// Character codes
const TAB = 9;
const LF = 10;
const VT = 11;
const FF = 12;
const CR = 13;
const SPACE = 32;
const BANG = 33;
const QUOTE = 34;
const HASH = 35;
const PERCENT = 37;
const LPAREN = 40;
const RPAREN = 41;
const COMMA = 44;
const DASH = 45;
const DOT = 46;
const SLASH = 47;
const EQUALS = 61;
const BACKSLASH = 92;
const UNDERSCORE = 95;
const LCURLY = 123;
const RCURLY = 125;
const D0 = 48;
const D9 = 57;

function isDigit(c: number): boolean {
  return c >= D0 && c <= D9;
}

/** `[A-Za-z0-9_]`: a character a name starts with. */
function isWordStart(c: number): boolean {
  return isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === UNDERSCORE;
}

/** Every type the fast lexer makes, by its number in `Lexed.kinds`. */
const LEXED_TYPES: TokenType[] = [];
/** The one spelling of a kind's tokens (keywords and marks); the others' text is cut from the source. */
const SPELLING: Array<string | undefined> = [];
function kindOf(type: TokenType, spelling?: string): number {
  LEXED_TYPES.push(type);
  SPELLING.push(spelling);
  return LEXED_TYPES.length - 1;
}
const NAME = kindOf(Name);
const STRING = kindOf(StringLit);
const DURATION = kindOf(Duration);
const PERCENTAGE = kindOf(Percent);
const NUMBER = kindOf(NumberLit);
const L_CURLY = kindOf(LCurly, '{');
const R_CURLY = kindOf(RCurly, '}');
const L_PAREN = kindOf(LParen, '(');
const R_PAREN = kindOf(RParen, ')');
const A_COMMA = kindOf(Comma, ',');
const DOUBLE_EQUALS = kindOf(DoubleEquals, '==');
const AN_EQUALS = kindOf(Equals, '=');
const NOT_EQUALS = kindOf(NotEquals, '!=');
const A_BANG = kindOf(Bang, '!');

/** A keyword's one shared spelling (as lexer.ts gives it) and its kind. */
interface Keyword {
  word: string;
  kind: number;
}

/** Keywords by the code of their first letter. */
const KEYWORDS_BY_FIRST: Array<Keyword[] | undefined> = [];
for (const [word, type] of KEYWORD_OF_WORD)
  (KEYWORDS_BY_FIRST[word.charCodeAt(0)] ??= []).push({ word, kind: kindOf(type, word) });

/** The tokens of `text`, or undefined when the lexer would report something or the text needs a closer look. */
export function fastLex(text: string): Lexed | undefined {
  const tokens = new Lexed(text);
  const n = text.length;
  let p = 0;
  while (p < n) {
    const c = text.charCodeAt(p);
    if (c === SPACE || c === LF || c === CR || c === TAB || c === VT || c === FF) {
      p++;
      continue;
    }
    if (isWordStart(c)) {
      p = isDigit(c) ? numberLike(text, p, tokens) : word(text, p, tokens);
      if (p < 0) return undefined;
      continue;
    }
    switch (c) {
      case HASH:
        p = comment(text, p, tokens.comments);
        continue;
      case SLASH:
        if (text.charCodeAt(p + 1) !== SLASH) return undefined;
        p = comment(text, p, tokens.comments);
        continue;
      case QUOTE: {
        const end = stringEnd(text, p);
        if (end < 0) return undefined; // unterminated: the lexer reports it
        tokens.add(STRING, p, end);
        p = end;
        continue;
      }
      case LCURLY:
        tokens.add(L_CURLY, p, ++p);
        continue;
      case RCURLY:
        tokens.add(R_CURLY, p, ++p);
        continue;
      case LPAREN:
        tokens.add(L_PAREN, p, ++p);
        continue;
      case RPAREN:
        tokens.add(R_PAREN, p, ++p);
        continue;
      case COMMA:
        tokens.add(A_COMMA, p, ++p);
        continue;
      case EQUALS:
        if (text.charCodeAt(p + 1) === EQUALS) tokens.add(DOUBLE_EQUALS, p, (p += 2));
        else tokens.add(AN_EQUALS, p, ++p);
        continue;
      case BANG:
        if (text.charCodeAt(p + 1) === EQUALS) tokens.add(NOT_EQUALS, p, (p += 2));
        else tokens.add(A_BANG, p, ++p);
        continue;
      default:
        // `%` first (reported), a character no token starts with (reported), a blank beyond ASCII
        return undefined;
    }
  }
  return tokens;
}

/** The token objects Chevrotain's lexer would have made (lexer.ts `OffsetLexer`). */
export function toTokens(lexed: Lexed): IToken[] {
  const tokens = new Array<IToken>(lexed.count);
  for (let i = 0; i < lexed.count; i++) {
    const type = lexed.type(i);
    const start = lexed.starts[i]!;
    tokens[i] = {
      image: lexed.image(i),
      startOffset: start,
      endOffset: lexed.ends[i]! - 1,
      tokenTypeIdx: type.tokenTypeIdx!,
      tokenType: type,
    };
  }
  return tokens;
}

/** `#` or `//` to the end of the line (not its `\r` or `\n`); returns where it ends. */
function comment(text: string, p: number, comments: IToken[]): number {
  let end = p + 1;
  while (end < text.length) {
    const c = text.charCodeAt(end);
    if (c === LF || c === CR) break;
    end++;
  }
  const image = text.substring(p, end);
  comments.push({ image, startOffset: p, endOffset: end - 1, tokenTypeIdx: Comment.tokenTypeIdx!, tokenType: Comment });
  return end;
}

/** The end of a closed string starting at `p` (after its quote), or -1 when it is not closed on its line. */
function stringEnd(text: string, p: number): number {
  let i = p + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c === LF || c === CR) return -1;
    if (c === BACKSLASH) {
      const next = text.charCodeAt(i + 1);
      if (i + 1 >= text.length || next === LF || next === CR) return -1;
      i += 2;
    } else i++;
  }
  return -1;
}

/** The end of tokens.ts NAME_PATTERN's match at `p` (a name starts there). */
function nameEnd(text: string, p: number): number {
  let i = p + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isWordStart(c) || c === DOT || c === DASH) i++;
    else if (c === SLASH && text.charCodeAt(i + 1) !== SLASH) i++;
    else break;
  }
  return i;
}

/** A word: a keyword when spelt exactly as one (lexer.ts), else a name. */
function word(text: string, p: number, tokens: Lexed): number {
  const end = nameEnd(text, p);
  tokens.add(keywordAt(text, p, end)?.kind ?? NAME, p, end);
  return end;
}

/** The keyword spelt exactly as `text[p, end)`, found without cutting the word out of the text. */
function keywordAt(text: string, p: number, end: number): Keyword | undefined {
  const candidates = KEYWORDS_BY_FIRST[text.charCodeAt(p)];
  if (candidates === undefined) return undefined;
  for (const k of candidates) if (k.word.length === end - p && text.startsWith(k.word, p)) return k;
  return undefined;
}

/** The end of `\d+(?:\.\d+)?` at `p` (a digit). */
function numberEnd(text: string, p: number): number {
  let i = p;
  while (isDigit(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) === DOT && isDigit(text.charCodeAt(i + 1))) {
    i += 2;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  return i;
}

/** The end of DURATION_PATTERN `(?:\d+(?:ms|s|m|h|d))+` at `p`, or -1 when it does not match. */
function durationEnd(text: string, p: number): number {
  let end = -1;
  let i = p;
  for (;;) {
    let j = i;
    while (isDigit(text.charCodeAt(j))) j++;
    if (j === i) return end;
    const u = text.charCodeAt(j);
    if (u === 109 /* m */) j += text.charCodeAt(j + 1) === 115 /* s */ ? 2 : 1;
    else if (u === 115 /* s */ || u === 104 /* h */ || u === 100 /* d */) j++;
    else return end;
    end = j;
    i = j;
  }
}

/**
 * Text starting with a digit, in the lexer's priority order: a spaced percentage (reported), a
 * duration, a percentage, a number; a duration or number gives way to a longer name (`longer_alt`).
 */
function numberLike(text: string, p: number, tokens: Lexed): number {
  const num = numberEnd(text, p);
  let k = num;
  while (text.charCodeAt(k) === SPACE || text.charCodeAt(k) === TAB) k++;
  if (k > num && text.charCodeAt(k) === PERCENT) return -1; // `10 %`: the lexer reports it
  let kind: number;
  let end = durationEnd(text, p);
  if (end >= 0) kind = DURATION;
  else if (text.charCodeAt(num) === PERCENT) {
    end = num + 1;
    kind = PERCENTAGE;
  } else {
    end = num;
    kind = NUMBER;
  }
  if (kind !== PERCENTAGE) {
    const name = nameEnd(text, p);
    if (name > end) {
      end = name;
      kind = NAME;
    }
  }
  tokens.add(kind, p, end);
  return end;
}
