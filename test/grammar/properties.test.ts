// SPDX-License-Identifier: Apache-2.0
// Property tests: the formatter is idempotent and meaning-preserving on valid texts; parse and
// formatSource never throw, and every range they report is inside the text and consistent.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Position, Range } from '../../grammar/ast.js';
import { formatSource } from '../../grammar/format.js';
import { parse } from '../../grammar/parse.js';
import { mutatedText, validText } from './support/arbitraries.js';
import { withoutRanges } from './support/without-ranges.js';

const RUNS = { numRuns: 200 };

/** Independent of grammar/positions.ts on purpose: the position of `offset` counted by hand. */
function expectedPosition(text: string, offset: number): Omit<Position, 'offset'> {
  const before = text.slice(0, offset);
  const lines = before.split(/\r\n|\r|\n/);
  // A `\r` right before `offset` that is followed by `\n` has not ended its line yet.
  if (before.endsWith('\r') && text[offset] === '\n')
    return { line: lines.length - 2, character: lines[lines.length - 2]!.length + 1 };
  return { line: lines.length - 1, character: lines[lines.length - 1]!.length };
}

/** Plain checks rather than `expect` per range: there are thousands of ranges per run. */
function checkRange(text: string, range: Range): void {
  const { start, end } = range;
  if (!(start.offset >= 0 && start.offset <= end.offset && end.offset <= text.length)) {
    throw new Error(`range ${JSON.stringify(range)} is outside a text of length ${text.length}`);
  }
  for (const p of [start, end]) {
    const want = expectedPosition(text, p.offset);
    if (want.line !== p.line || want.character !== p.character) {
      throw new Error(`offset ${p.offset} is at ${want.line}:${want.character}, not ${p.line}:${p.character}`);
    }
  }
}

function forEachRange(v: unknown, visit: (r: Range) => void): void {
  if (Array.isArray(v)) v.forEach((x) => forEachRange(x, visit));
  else if (typeof v === 'object' && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      if (k === 'range') visit(x as Range);
      else forEachRange(x, visit);
    }
  }
}

function checkNeverThrows(text: string): void {
  const { value, diagnostics } = parse(text);
  for (const d of diagnostics) checkRange(text, d.range);
  forEachRange(value, (r) => checkRange(text, r));
  formatSource(text);
}

describe('grammar properties', () => {
  it('generated valid texts parse without diagnostics', () => {
    fc.assert(
      fc.property(validText, (text) => {
        expect(parse(text).diagnostics).toEqual([]);
      }),
      RUNS,
    );
  });

  it('formatting is idempotent and keeps the AST', () => {
    fc.assert(
      fc.property(validText, (text) => {
        const once = formatSource(text).value;
        expect(once).toBeDefined();
        expect(formatSource(once!).value).toBe(once);
        expect(withoutRanges(parse(once!).value)).toEqual(withoutRanges(parse(text).value));
      }),
      RUNS,
    );
  });

  it('never throws on garbage, and ranges stay inside the text', () => {
    const kpolish = fc.string({
      unit: fc.constantFrom(
        'p',
        'o',
        'l',
        'i',
        'c',
        'y',
        ' ',
        '\n',
        '\r',
        '{',
        '}',
        '"',
        '\\',
        '#',
        '/',
        '5',
        'm',
        '%',
        '=',
        '!',
        '(',
        ')',
        ',',
        'é',
        '😀',
      ),
      maxLength: 120,
    });
    fc.assert(fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 120 }), kpolish), checkNeverThrows), RUNS);
  });

  it('never throws on mutated valid texts, and ranges stay inside the text', () => {
    fc.assert(fc.property(mutatedText, checkNeverThrows), RUNS);
  });
});
