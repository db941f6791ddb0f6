// SPDX-License-Identifier: Apache-2.0
// Re-parsing only what changed. The text is cut before every line that starts with `policy`
// or `schedule`; each piece is parsed alone (grammar/'s own `parse`, unchanged) and cached by
// its text, and the pieces' ASTs are shifted into place. When every piece parses without a
// single diagnostic, the result is the whole-text parse exactly: a clean piece ends with a
// complete top-level declaration, after which the top-level grammar starts afresh at the next
// `policy`/`schedule`, and no token crosses a line break. Otherwise — any diagnostic in any
// piece — the whole text is parsed, so errors and recovery are always the parser's own.
import type { PolicyFile } from '../../grammar/ast.js';
import type { Result } from '../../grammar/diagnostic.js';
import { parse } from '../../grammar/parse.js';
import { shifted } from './shift-positions.js';

export interface Piece {
  start: number; // offset in the whole text
  line: number; // 0-based line of `start`
  text: string;
}

/** A piece with its own parse, every range relative to the piece's start. */
export interface ParsedPiece extends Piece {
  parsed: Result<PolicyFile>;
}

/** The text in clean pieces, or — when any piece has a diagnostic — the whole-text parse. */
export type PieceParse = { pieces: ParsedPiece[] } | { whole: Result<PolicyFile> };

// `policy` or `schedule` as a whole word: not followed by a character names may hold.
const TOP_LEVEL = /(?:policy|schedule)(?![A-Za-z0-9_.\-/])/y;

function startsDeclaration(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  if (c !== 112 && c !== 115) return false; // neither `p` nor `s`: most lines, without a regex
  TOP_LEVEL.lastIndex = at;
  return TOP_LEVEL.test(text);
}

/** Cuts `text` before each line that starts a top-level declaration (line breaks as LineIndex reads them). */
export function pieces(text: string): Piece[] {
  const out: Piece[] = [];
  let start = 0;
  let startLine = 0;
  let line = 0;
  for (let i = 0; i <= text.length;) {
    if (i > start && startsDeclaration(text, i)) {
      out.push({ start, line: startLine, text: text.slice(start, i) });
      start = i;
      startLine = line;
    }
    const nl = nextLineStart(text, i);
    if (nl < 0) break;
    i = nl;
    line++;
  }
  out.push({ start, line: startLine, text: text.slice(start) });
  return out;
}

function nextLineStart(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13) return text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
    if (c === 10) return i + 1;
  }
  return -1;
}

export class ChunkedParser {
  private cache = new Map<string, Result<PolicyFile>>();
  /** Pieces parsed (not found in the cache) by the last call; for tests and the benchmark. */
  lastParsed = 0;

  /** Each piece's parse in its own frame; the whole-text parse as soon as any piece has a diagnostic. */
  parsePieces(text: string): PieceParse {
    const parts = pieces(text);
    const next = new Map<string, Result<PolicyFile>>();
    this.lastParsed = 0;
    for (const p of parts) {
      let r = this.cache.get(p.text) ?? next.get(p.text);
      if (!r) {
        r = parse(p.text);
        this.lastParsed++;
      }
      next.set(p.text, r);
    }
    this.cache = next;
    if (parts.some((p) => next.get(p.text)!.diagnostics.length > 0)) return { whole: parse(text) };
    return { pieces: parts.map((p) => ({ ...p, parsed: next.get(p.text)! })) };
  }

  parse(text: string): Result<PolicyFile> {
    const split = this.parsePieces(text);
    return 'whole' in split ? split.whole : { value: joinPieces(split.pieces), diagnostics: [] };
  }
}

/** The file the clean pieces make, every range moved to where its piece lies (a deep copy). */
export function joinPieces(parts: readonly ParsedPiece[]): PolicyFile {
  const whole = parse(''); // an empty file supplies the shape; its range is replaced below
  const file: PolicyFile = { ...whole.value, schedules: [], policies: [], comments: [] };
  for (const p of parts) {
    const f = shifted(p.parsed.value, p.line, p.start);
    file.schedules.push(...f.schedules);
    file.policies.push(...f.policies);
    if (f.clusterBudgets) (file.clusterBudgets ??= []).push(...f.clusterBudgets);
    file.comments.push(...f.comments);
  }
  const last = parts[parts.length - 1];
  const end = shifted(last.parsed.value.range.end, last.line, last.start);
  file.range = { start: { line: 0, character: 0, offset: 0 }, end };
  return file;
}
