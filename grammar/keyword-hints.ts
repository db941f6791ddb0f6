// SPDX-License-Identifier: Apache-2.0
// "Did you mean …?" for words the parser did not expect. The keywords the grammar allows at the
// spot come from Chevrotain's content assist (parser.ts `keywordsAfter`), so a hint never names
// a word that could not stand there: `budjet` → `budget`, `fro` after `budget 5` → `for`,
// `Drifted` after `budget 5` → `for Drifted`, `during` after `allow 3 Drifted` → `only during`.
import { tokenMatcher, type IToken } from 'chevrotain';
import { format } from './diagnostic.js';
import { MESSAGES } from './messages.js';
import { keywordsAfter, tokensAfter } from './parser.js';
import { didYouMean, slipDistance } from './suggest.js';
import { Identifier, kw, LCurly, Name, RCurly, REASONS, STATEMENT_KEYWORDS } from './tokens.js';

/** Help and quick fix for a diagnostic whose range is the unexpected token. */
export interface Hint {
  help: string;
  fix: string;
}

const WORD = /^[A-Za-z][A-Za-z_-]*$/;
const TOP_LEVEL = [kw.policy!, kw.schedule!];
const STATEMENT_STARTS = STATEMENT_KEYWORDS.map((w) => kw[w]!);
const STARTS_ITSELF = [...STATEMENT_STARTS, ...TOP_LEVEL, RCurly];

/** Where the statement or declaration holding each token starts (`from`), and whether it is one. */
interface Enclosing {
  from: Int32Array;
  statement: Uint8Array;
}

// Built once per token list: looking back from each error instead was quadratic for a long
// statement of errors (issue 13: `budget 1 for A , , A , , …`, 117 KB, took 21 s).
const enclosingOf = new WeakMap<readonly IToken[], Enclosing>();

/**
 * Where the statement or declaration that `tokens[index]` belongs to starts, and its rule: the
 * nearest token before it that is a `{` or `}` (a statement starts after it), a statement
 * keyword or a top-level keyword.
 */
function enclosingStart(tokens: readonly IToken[], index: number): { rule: 'statement' | 'file'; from: number } {
  let e = enclosingOf.get(tokens);
  if (!e) enclosingOf.set(tokens, (e = enclosingAll(tokens)));
  return { rule: e.statement[index] ? 'statement' : 'file', from: e.from[index]! };
}

/** `enclosingStart` for every index in one pass: the answer for j + 1 is decided by token j. */
function enclosingAll(tokens: readonly IToken[]): Enclosing {
  const from = new Int32Array(tokens.length + 1);
  const statement = new Uint8Array(tokens.length + 1);
  for (let j = 0; j < tokens.length; j++) {
    const t = tokens[j]!;
    if (tokenMatcher(t, LCurly) || tokenMatcher(t, RCurly)) [from[j + 1], statement[j + 1]] = [j + 1, 1];
    else if (STATEMENT_STARTS.some((type) => tokenMatcher(t, type))) [from[j + 1], statement[j + 1]] = [j, 1];
    else if (TOP_LEVEL.some((type) => tokenMatcher(t, type))) [from[j + 1], statement[j + 1]] = [j, 0];
    else [from[j + 1], statement[j + 1]] = [from[j]!, statement[j]!];
  }
  return { from, statement };
}

/** The index of `token` in `tokens` (sorted by offset), or -1. */
export function tokenIndex(tokens: readonly IToken[], token: IToken): number {
  let lo = 0;
  let hi = tokens.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const offset = tokens[mid]!.startOffset;
    if (offset === token.startOffset) return mid;
    if (offset < token.startOffset) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** A hint for `found`, an unexpected token of `tokens`, from what its statement allows there. */
export function hintAt(tokens: readonly IToken[], found: IToken): Hint | undefined {
  const index = tokenIndex(tokens, found);
  if (index < 0) return undefined;
  const { rule, from } = enclosingStart(tokens, index);
  return hintAfter(rule, tokens.slice(from, index), found);
}

/**
 * The offset of the statement `token` lies in, or undefined when it starts something itself
 * (a statement, a declaration, the `}` of its policy) or lies outside a policy body.
 */
export function statementOffsetOf(tokens: readonly IToken[], token: IToken): number | undefined {
  if (STARTS_ITSELF.some((type) => tokenMatcher(token, type))) return undefined;
  const index = tokenIndex(tokens, token);
  if (index < 0) return undefined;
  const { rule, from } = enclosingStart(tokens, index);
  return rule === 'statement' ? tokens[from]?.startOffset : undefined;
}

/** A hint for `found` right after `preceding`, the tokens of a `rule` so far. */
export function hintAfter(rule: 'statement' | 'file', preceding: IToken[], found: IToken): Hint | undefined {
  const expected = keywordsAfter(rule, preceding);
  if (expected.length === 0) return undefined;
  const word = found.image;
  if (tokenMatcher(found, Name)) {
    const typo = WORD.test(word) ? didYouMean(word, expected, slipDistance(word)) : undefined;
    if (typo) return typo;
    // A reason where `for` may stand: `budget 5 Drifted`. Other names are likelier misspelt words.
    return REASONS.includes(word) && expected.includes('for') ? insert(`for ${word}`) : undefined;
  }
  const typo = WORD.test(word) ? didYouMean(word, expected, slipDistance(word)) : undefined;
  if (typo) return typo;
  // A keyword, duration or schedule one word early: `allow 3 Drifted during` (missing `only`),
  // `during "@daily" 1h` (missing `for`), `blocks Drifted "@daily"` (missing `during`). Not
  // where any name may stand: a keyword is a name there too, and nothing says it was meant so.
  const fits = (k: string) =>
    tokensAfter(rule, [...preceding, keywordToken(k, found)]).some(
      (type) => type !== Identifier && tokenMatcher(found, type),
    );
  const missing = expected.find(fits);
  return missing === undefined ? undefined : insert(`${missing} ${word}`);
}

function insert(text: string): Hint {
  return { help: format(MESSAGES.didYouMean.text, { suggestion: text }), fix: text };
}

/** A stand-in token of keyword `word` for content assist, which reads only token types. */
function keywordToken(word: string, at: IToken): IToken {
  const type = kw[word]!;
  return { image: word, startOffset: at.startOffset, tokenType: type, tokenTypeIdx: type.tokenTypeIdx! };
}
