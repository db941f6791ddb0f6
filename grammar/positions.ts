// SPDX-License-Identifier: Apache-2.0
// Offset ↔ position conversion with one definition of a line break (`\r\n`, `\n` or `\r`), so
// that every range the grammar produces agrees on line and character for a given offset.
import type { IToken } from 'chevrotain';
import type { Position, Range } from './ast.js';

/** How many recent positions a LineIndex keeps for sharing (a power of two). */
const RECENT = 64;

/** Line starts of one text; positions are 0-based and `character` counts UTF-16 code units. */
export class LineIndex {
  private readonly starts: number[] = [0];
  /** The line of the previous lookup: ranges are mostly asked for in source order. */
  private hint = 0;
  /**
   * Positions made lately, by offset modulo the size: a node's range mostly starts where its
   * first token's does and ends where its last one's does, so sharing those objects leaves the
   * AST with far fewer of them to build and for the garbage collector to copy. Nothing mutates
   * a position, so sharing one is safe.
   */
  private readonly recent: (Position | undefined)[] = new Array<Position | undefined>(RECENT).fill(undefined);

  constructor(readonly text: string) {
    if (!text.includes('\r')) {
      // Only `\n` breaks lines: the built-in search is several times faster than a loop over every character.
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
      return;
    }
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 13 /* \r */) {
        if (text.charCodeAt(i + 1) === 10) i++;
        this.starts.push(i + 1);
      } else if (c === 10 /* \n */) {
        this.starts.push(i + 1);
      }
    }
  }

  /** The position of `offset`, clamped to the text. */
  positionAt(offset: number): Position {
    const o = Math.max(0, Math.min(offset, this.text.length));
    const slot = o & (RECENT - 1);
    const cached = this.recent[slot];
    if (cached !== undefined && cached.offset === o) return cached;
    const line = this.lineAt(o);
    this.hint = line;
    const position = { line, character: o - this.starts[line]!, offset: o };
    this.recent[slot] = position;
    return position;
  }

  /** The last line starting at or before `o`. */
  private lineAt(o: number): number {
    const starts = this.starts;
    const hint = this.hint;
    if (starts[hint]! <= o && (hint + 1 >= starts.length || o < starts[hint + 1]!)) return hint;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= o) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The range `[start, end)` given as offsets. */
  range(start: number, end: number): Range {
    return { start: this.positionAt(start), end: this.positionAt(end) };
  }

  /** The range a lexed token covers (`endOffset` in Chevrotain is inclusive). */
  tokenRange(token: IToken): Range {
    return this.range(token.startOffset, token.startOffset + token.image.length);
  }

  /** The number of lines (a text without line breaks has one). */
  get lineCount(): number {
    return this.starts.length;
  }

  /** The text of line `line` without its line break. */
  lineText(line: number): string {
    const start = this.starts[line] ?? this.text.length;
    let end = this.starts[line + 1] ?? this.text.length;
    while (end > start && (this.text[end - 1] === '\n' || this.text[end - 1] === '\r')) end--;
    return this.text.slice(start, end);
  }
}
