// SPDX-License-Identifier: Apache-2.0
// The per-file diagnostic limit: parse keeps the first MAX_DIAGNOSTICS in source order and counts
// the rest, so a file of endless mistakes costs bounded diagnostics (issue 13, defect 2).
import { describe, expect, it } from 'vitest';
import { diagnostic, hasErrors, type Diagnostic } from '../../grammar/diagnostic.js';
import { limitDiagnostics, MAX_DIAGNOSTICS } from '../../grammar/diagnostic-limit.js';
import { parse } from '../../grammar/parse.js';
import { parseTokens } from '../../grammar/parser.js';
import { tokenize } from '../../grammar/lexer.js';
import { LineIndex } from '../../grammar/positions.js';

const lines = new LineIndex('x'.repeat(1000));
const at = (name: 'unexpectedCharacter' | 'spacedPercent', offset: number): Diagnostic => {
  const range = lines.range(offset, offset + 1);
  if (name === 'unexpectedCharacter') return diagnostic(name, range, { char: 'x' });
  return diagnostic(name, range, { text: '1 %' });
};

describe('the diagnostic limit', () => {
  it('parse keeps the first diagnostics of a file full of mistakes and counts the rest', () => {
    const n = 3 * MAX_DIAGNOSTICS;
    const r = parse('policy '.repeat(2 * n)); // one `expected for` per pair of words
    expect(r.diagnostics.length).toBe(MAX_DIAGNOSTICS);
    expect(r.omitted).toBe(n - MAX_DIAGNOSTICS);
    const offsets = r.diagnostics.map((d) => d.range.start.offset);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect(offsets[0]).toBe('policy policy '.length);
  });

  it('limits lexer errors too', () => {
    const r = parse('@ '.repeat(5 * MAX_DIAGNOSTICS));
    expect(r.diagnostics.length).toBe(MAX_DIAGNOSTICS);
    expect(r.omitted).toBe(4 * MAX_DIAGNOSTICS);
  });

  it('leaves a file under the limit alone', () => {
    const r = parse('@ '.repeat(MAX_DIAGNOSTICS));
    expect(r.diagnostics.length).toBe(MAX_DIAGNOSTICS);
    expect(r.omitted ?? 0).toBe(0);
  });

  it('keeps an error among those shown when only omitted ones are errors', () => {
    const list = [...Array.from({ length: 150 }, (_, i) => at('spacedPercent', i)), at('unexpectedCharacter', 900)];
    const warningsFirst = list.map((d) => (d.code === 'KPOL1007' ? { ...d, severity: 'warning' as const } : d));
    const r = limitDiagnostics(warningsFirst, 100);
    expect(r.diagnostics.length).toBe(100);
    expect(r.omitted).toBe(51);
    expect(hasErrors(r.diagnostics)).toBe(true);
    expect(r.diagnostics.at(-1)!.range.start.offset).toBe(900);
  });
});

describe('the parser on a file of errors', () => {
  it('records no stack trace per error (nothing reads it) and restores Error.stackTraceLimit', () => {
    const before = Error.stackTraceLimit;
    const { errors } = parseTokens(tokenize('policy '.repeat(20)).tokens);
    expect(errors.length).toBeGreaterThan(5);
    for (const e of errors) expect(e.stack ?? '').not.toMatch(/\n\s+at /);
    expect(Error.stackTraceLimit).toBe(before);
  });
});
