// SPDX-License-Identifier: Apache-2.0
// parse: text to AST (tokenize → parse → lower). The single entry point of grammar/.
import { EOF, type IRecognitionException, type IToken } from 'chevrotain';
import type { PolicyFile } from './ast.js';
import { limitDiagnostics, MAX_DIAGNOSTICS } from './diagnostic-limit.js';
import { diagnostic, sortDiagnostics, type Diagnostic, type Result } from './diagnostic.js';
import { describeToken } from './expected.js';
import { fastLex, toTokens } from './fast-lex.js';
import { fastParse } from './fast-parse.js';
import { hintAt, statementOffsetOf, tokenIndex } from './keyword-hints.js';
import { tokenize, toComments, type Tokenized } from './lexer.js';
import { EarlyPolicies, lower } from './lower.js';
import { MESSAGES } from './messages.js';
import { parseTokens } from './parser.js';
import { LineIndex } from './positions.js';
import { Duration } from './tokens.js';
import { durationHint } from './unit-hints.js';

const MAX_FOUND_CHARS = 40;
const PERCENT_SLIPS = new Set([MESSAGES.spacedPercent.code, MESSAGES.percentFirst.code]);

/** How `parse` works; the result is the same either way. */
export interface ParseOptions {
  /**
   * Lower each policy as soon as it is parsed, while no syntax error has been seen (the default),
   * rather than the whole CST at the end. False is the plain path the equality test compares with.
   */
  lowerWhileParsing?: boolean;
  /**
   * Try the one-pass fast path of fast-parse.ts first (the default), for a file with nothing to
   * report; false always takes the Chevrotain path. The equality test compares the two.
   */
  fastPath?: boolean;
}

/**
 * Parses a .kpol text. Never throws on user input: syntax errors become diagnostics (sorted by
 * position) and the AST holds every declaration and statement that was written out in full.
 */
export function parse(text: string, options: ParseOptions = {}): Result<PolicyFile> {
  let tokenized: Tokenized | undefined;
  // Most files in a running controller or editor have no mistake; any that fast-lex.ts or
  // fast-parse.ts does not expect takes the path below from the start, so its diagnostics are the
  // usual ones. The fast parser reads the fast lexer's arrays: no token objects are made for it.
  const lexed = options.fastPath === false ? undefined : fastLex(text);
  if (lexed) {
    const lines = new LineIndex(text);
    const comments = toComments(lexed.comments, lines);
    const file = fastParse(lexed, comments, lines);
    if (file) return { value: file, diagnostics: [] };
    tokenized = { tokens: toTokens(lexed), comments, diagnostics: [], omitted: 0, lines };
  }
  // When the fast lexer was tried and gave up, Chevrotain's lexer runs (not the fast one again).
  tokenized ??= tokenize(text, { fastLex: options.fastPath === false });
  // `10 %` is still a percentage to the parser: a word beside it is a mistake of its own.
  const lexerErrorOffsets = tokenized.diagnostics
    .filter((d) => !PERCENT_SLIPS.has(d.code))
    .map((d) => d.range.start.offset);
  // Policies before the first syntax error are lowered as they are parsed (lower.ts).
  const early =
    options.lowerWhileParsing === false ? undefined : new EarlyPolicies(tokenized.lines, new Set(lexerErrorOffsets));
  const { cst, errors } = parseTokens(tokenized.tokens, early && ((node) => early.add(node)));
  const firstErrors = firstPerStatement(errors, tokenized.tokens);
  const parseDiagnostics = syntaxDiagnostics(firstErrors, tokenized.tokens, tokenized.lines);
  const errorOffsets = new Set([
    ...errors.map((e) => e.token.startOffset).filter(Number.isFinite),
    ...lexerErrorOffsets,
  ]);
  const lowered = lower({
    cst,
    tokens: tokenized.tokens,
    comments: tokenized.comments,
    lines: tokenized.lines,
    errorOffsets,
    recovered: errors.length > 0,
    early,
  });
  const all = [...tokenized.diagnostics, ...parseDiagnostics.shown, ...lowered.diagnostics];
  const limited = limitDiagnostics(sortDiagnostics(all));
  const omitted = tokenized.omitted + parseDiagnostics.omitted + limited.omitted;
  const result: Result<PolicyFile> = { value: lowered.value, diagnostics: limited.diagnostics };
  if (omitted > 0) result.omitted = omitted;
  return result;
}

/**
 * The first MAX_DIAGNOSTICS syntax errors as diagnostics, the rest only counted: building one
 * asks the grammar for hints, which is most of the cost of a parse full of errors. Recovery can
 * report the same token twice (once per enclosing rule); the first is kept.
 */
function syntaxDiagnostics(
  errors: IRecognitionException[],
  tokens: IToken[],
  lines: LineIndex,
): { shown: Diagnostic[]; omitted: number } {
  const shown: Diagnostic[] = [];
  const seen = new Set<number>();
  let omitted = 0;
  for (const e of errors) {
    if (shown.length < MAX_DIAGNOSTICS) {
      const d = toDiagnostic(e, tokens, lines);
      if (seen.has(d.range.start.offset)) continue;
      seen.add(d.range.start.offset);
      shown.push(d);
    } else if (!seen.has(e.token.startOffset)) {
      // Past the limit only the token is at hand; it is where its diagnostic would start.
      seen.add(e.token.startOffset);
      omitted++;
    }
  }
  return { shown, omitted };
}

/** Chevrotain's message is the "expected" phrase (see expected.ts); the hint comes from the grammar. */
function toDiagnostic(error: IRecognitionException, tokens: IToken[], lines: LineIndex): Diagnostic {
  const token = error.token;
  if (token.tokenType === EOF || !Number.isFinite(token.startOffset)) {
    const last = tokens[tokens.length - 1];
    const end = last ? last.startOffset + last.image.length : 0;
    return diagnostic('unexpectedEnd', lines.range(end, end), { expected: error.message });
  }
  const found = token.image.length > MAX_FOUND_CHARS ? `${token.image.slice(0, MAX_FOUND_CHARS)}…` : token.image;
  const args = { expected: error.message, found };
  const duration = error.message.includes(describeToken(Duration))
    ? durationHint(token, tokenAfter(tokens, token), lines)
    : undefined;
  if (duration) {
    const { range, ...hint } = duration;
    return diagnostic(
      'unexpectedToken',
      range,
      { ...args, found: lines.text.slice(range.start.offset, range.end.offset) },
      hint,
    );
  }
  return diagnostic('unexpectedToken', lines.tokenRange(token), args, hintAt(tokens, token) ?? {});
}

function tokenAfter(tokens: IToken[], token: IToken): IToken | undefined {
  const i = tokenIndex(tokens, token);
  return i >= 0 ? tokens[i + 1] : undefined;
}

/**
 * One error per statement: after the first, recovery guesses (inserts a missing keyword, takes a
 * misspelt one for a name) and whatever it then trips over is a consequence, not a mistake.
 */
function firstPerStatement(errors: IRecognitionException[], tokens: IToken[]): IRecognitionException[] {
  const seen = new Set<number>();
  const at = (e: IRecognitionException) => (Number.isFinite(e.token.startOffset) ? e.token.startOffset : Infinity);
  return [...errors]
    .sort((a, b) => at(a) - at(b))
    .filter((e) => {
      if (!Number.isFinite(e.token.startOffset)) return true;
      const statement = statementOffsetOf(tokens, e.token);
      if (statement === undefined) return true;
      if (seen.has(statement)) return false;
      seen.add(statement);
      return true;
    });
}
