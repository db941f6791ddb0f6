// SPDX-License-Identifier: Apache-2.0
// Text that did not parse into the AST. Junk (words no statement or declaration starts with) is
// reported here with a hint from the grammar, unless the parser already reported an error at one
// of its words or it is the remainder of a statement that failed: one error per statement, no
// follow-on. Every such text, and every statement or declaration lowering dropped, is recorded
// as `Unparsed` so the checker does not report what follows from its absence.
import { tokenMatcher, type CstNode, type IToken } from 'chevrotain';
import type { Unparsed } from './ast.js';
import { allTokensOf } from './cst.js';
import { diagnostic } from './diagnostic.js';
import { hintAfter } from './keyword-hints.js';
import { type LowerContext, wasRecoveredIn } from './lower-parts.js';
import { Name } from './tokens.js';

const MAX_FOUND_CHARS = 40;

function shorten(image: string): string {
  return image.length > MAX_FOUND_CHARS ? `${image.slice(0, MAX_FOUND_CHARS)}…` : image;
}

/** Records the text of `tokens` as unparsed. */
export function markUnparsed(ctx: LowerContext, tokens: readonly IToken[]): void {
  const first = tokens[0];
  const last = tokens[tokens.length - 1];
  if (!first || !last) return;
  const words = tokens.filter((t) => tokenMatcher(t, Name)).map((t) => t.image);
  const u: Unparsed = {
    kind: 'Unparsed',
    words: [...new Set(words)],
    range: ctx.lines.range(first.startOffset, last.startOffset + last.image.length),
  };
  ctx.unparsed.push(u);
}

/** Unknown text at top level, reported at its first word as "expected `policy` or `schedule`". */
export function reportTopLevelJunk(ctx: LowerContext, node: CstNode, errorOffsets: ReadonlySet<number>): void {
  const tokens = allTokensOf(node);
  markUnparsed(ctx, tokens);
  const first = tokens[0];
  if (!first || tokens.some((t) => errorOffsets.has(t.startOffset))) return;
  const args = { expected: '`policy` or `schedule`', found: shorten(first.image) };
  ctx.diagnostics.push(
    diagnostic('unexpectedToken', ctx.lines.tokenRange(first), args, hintAfter('file', [], first) ?? {}),
  );
}

/**
 * Unknown words in a policy body, one line at a time. Words on the line of the `previous`
 * statement are "expected the end of the statement" (not reported when that statement failed:
 * they are its remainder); words starting a line are an unknown statement. A later line of the
 * same junk is reported only when it looks like a misspelt statement (`budgte 5`): otherwise it
 * is likelier the continuation of the line before.
 */
export function reportUnknownStatement(
  ctx: LowerContext,
  node: CstNode,
  previous: CstNode | undefined,
  errorOffsets: ReadonlySet<number>,
): void {
  const tokens = allTokensOf(node);
  markUnparsed(ctx, tokens);
  const before = previous ? allTokensOf(previous) : [];
  const lineOf = (t: IToken) => ctx.lines.positionAt(t.startOffset).line;
  let line = before.length > 0 ? lineOf(before[before.length - 1]!) : -1;
  const lines: IToken[][] = [];
  for (const t of tokens) {
    const l = lineOf(t);
    if (l !== line || lines.length === 0) lines.push([]);
    lines[lines.length - 1]!.push(t);
    line = l;
  }
  lines.forEach((words, i) => {
    const first = words[0]!;
    if (words.some((t) => errorOffsets.has(t.startOffset))) return;
    const range = ctx.lines.tokenRange(first);
    const found = shorten(first.image);
    const leftOver = i === 0 && before.length > 0 && lineOf(before[before.length - 1]!) === range.start.line;
    if (leftOver) {
      if (wasRecoveredIn(ctx, previous!)) return;
      const args = { expected: 'the end of the statement', found };
      ctx.diagnostics.push(diagnostic('unexpectedToken', range, args, hintAfter('statement', before, first) ?? {}));
      return;
    }
    const hint = hintAfter('statement', [], first);
    if (i > 0 && !hint) return;
    ctx.diagnostics.push(diagnostic('unexpectedStatement', range, { found }, hint ?? {}));
  });
}
