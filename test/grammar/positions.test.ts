// SPDX-License-Identifier: Apache-2.0
// LineIndex finds line starts with a string search when the text has no `\r`, and with a loop over
// every character otherwise; both must give the positions of the plain definition.
import { describe, expect, it } from 'vitest';
import { LineIndex } from '../../grammar/positions.js';

/** Line and character of `offset` by the definition: a line ends at `\r\n`, `\n` or `\r`. */
function reference(text: string, offset: number): { line: number; character: number; offset: number } {
  let line = 0;
  let start = 0;
  for (let i = 0; i < offset; i++) {
    const c = text[i];
    if (c === '\r' && text[i + 1] === '\n') continue; // the break is the `\n` that follows
    if (c === '\n' || c === '\r') {
      line++;
      start = i + 1;
    }
  }
  return { line, character: offset - start, offset };
}

const texts = [
  '',
  'a',
  '\n',
  '\n\n',
  'policy a for nodepool x {\n  budget 1\n}\n',
  'policy a for nodepool x {\n  budget 1\n}',
  '\r\n',
  'a\r\nb\rc\nd\r\r\n\n',
  'x\ry',
  '# ü\n"é"\n\n  window w',
];

describe('LineIndex', () => {
  it.each(texts.map((t) => [JSON.stringify(t), t] as const))('places every offset of %s', (_name, text) => {
    const index = new LineIndex(text);
    for (let offset = 0; offset <= text.length; offset++)
      expect(index.positionAt(offset)).toEqual(reference(text, offset));
    expect(index.lineCount).toBe(reference(text, text.length).line + 1);
  });

  it('places the offsets of a large text without `\\r` (the string-search path)', () => {
    const text = Array.from({ length: 500 }, (_, i) => 'x'.repeat(i % 7) + (i % 3 === 0 ? '\n\n' : '\n')).join('');
    const index = new LineIndex(text);
    for (let offset = 0; offset <= text.length; offset += 3)
      expect(index.positionAt(offset)).toEqual(reference(text, offset));
  });
});
