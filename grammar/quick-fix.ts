// SPDX-License-Identifier: Apache-2.0
// Which diagnostics offer a quick fix at a place in the text: those carrying a `fix` (the
// replacement for their range, e.g. "did you mean") whose range overlaps or touches the place.
// The browser editor turns them into Monaco code actions, `kpol lsp` into LSP ones.
import type { Position } from './ast.js';
import type { Diagnostic } from './diagnostic.js';

/** A 0-based line and UTF-16 character, as in every kpol range. */
export type LineCharacter = Pick<Position, 'line' | 'character'>;

const isBefore = (a: LineCharacter, b: LineCharacter): boolean =>
  a.line < b.line || (a.line === b.line && a.character < b.character);

/** The diagnostics with a fix whose range overlaps or touches [start, end]. */
export function fixesTouching(
  diagnostics: readonly Diagnostic[],
  start: LineCharacter,
  end: LineCharacter,
): Diagnostic[] {
  return diagnostics.filter(
    (d) => d.fix !== undefined && !isBefore(d.range.end, start) && !isBefore(end, d.range.start),
  );
}
