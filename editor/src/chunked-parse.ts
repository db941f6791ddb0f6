// SPDX-License-Identifier: Apache-2.0
// Re-parsing only what changed. The text is cut before every line that starts with `policy`
// or `schedule`; each piece is parsed alone (grammar/'s own `parse`, unchanged) and cached by
// its text, and the pieces' ASTs are shifted into place. When every piece parses without a
// single diagnostic, the result is the whole-text parse exactly: a clean piece ends with a
// complete top-level declaration, after which the top-level grammar starts afresh at the next
// `policy`/`schedule`, and no token crosses a line break. Otherwise — any diagnostic in any
// piece — the whole text is parsed, so errors and recovery are always the parser's own.
import type { PolicyFile, Position } from '../../grammar/ast.js';
import type { Result } from '../../grammar/diagnostic.js';
import { parse } from '../../grammar/parse.js';

interface Piece {
  start: number; // offset in the whole text
  line: number; // 0-based line of `start`
  text: string;
}

const TOP_LEVEL = /^(?:policy|schedule)(?![A-Za-z0-9_.\-/])/;

/** Cuts `text` before each line that starts a top-level declaration (line breaks as LineIndex reads them). */
export function pieces(text: string): Piece[] {
  const out: Piece[] = [];
  let start = 0;
  let startLine = 0;
  let line = 0;
  for (let i = 0; i <= text.length; ) {
    if (i > start && TOP_LEVEL.test(text.slice(i, i + 9))) {
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

const isPosition = (v: Record<string, unknown>): v is Record<string, unknown> & Position =>
  typeof v.line === 'number' && typeof v.character === 'number' && typeof v.offset === 'number';

/** A deep copy with every Position moved down by `lines` and along by `offset`. */
function shifted<T>(value: T, lines: number, offset: number): T {
  if (Array.isArray(value)) return value.map((v) => shifted(v, lines, offset)) as T;
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if (isPosition(o)) return { ...o, line: o.line + lines, offset: o.offset + offset } as T;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) out[k] = shifted(o[k], lines, offset);
  return out as T;
}

export class ChunkedParser {
  private cache = new Map<string, Result<PolicyFile>>();
  /** Pieces parsed (not found in the cache) by the last call; for tests and the benchmark. */
  lastParsed = 0;

  parse(text: string): Result<PolicyFile> {
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
    if (parts.some((p) => next.get(p.text)!.diagnostics.length > 0)) return parse(text);
    const whole = parse(''); // an empty file supplies the shape; its range is replaced below
    const file: PolicyFile = { ...whole.value, schedules: [], policies: [], comments: [] };
    for (const p of parts) {
      const f = shifted(next.get(p.text)!.value, p.line, p.start);
      file.schedules.push(...f.schedules);
      file.policies.push(...f.policies);
      file.comments.push(...f.comments);
    }
    const last = parts[parts.length - 1];
    const end = shifted(next.get(last.text)!.value.range.end, last.line, last.start);
    file.range = { start: { line: 0, character: 0, offset: 0 }, end };
    return { value: file, diagnostics: [] };
  }
}
