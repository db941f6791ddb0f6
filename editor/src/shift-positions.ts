// SPDX-License-Identifier: Apache-2.0
// Moving syntax between frames: a piece of text is parsed and checked as if it started the
// file, and what comes out — ASTs, diagnostics — is moved to where the piece really lies.
import type { Position } from '../../grammar/ast.js';

const isPosition = (v: Record<string, unknown>): v is Record<string, unknown> & Position =>
  typeof v.line === 'number' && typeof v.character === 'number' && typeof v.offset === 'number';

/** A deep copy with every Position moved down by `lines` and along by `offset`. */
export function shifted<T>(value: T, lines: number, offset: number): T {
  if (Array.isArray(value)) return value.map((v) => shifted(v, lines, offset)) as T;
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if (isPosition(o)) return { ...o, line: o.line + lines, offset: o.offset + offset } as T;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) out[k] = shifted(o[k], lines, offset);
  return out as T;
}
