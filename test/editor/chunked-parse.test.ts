// SPDX-License-Identifier: Apache-2.0
// The worker's piecewise parse gives exactly the whole-text parse — AST (with every range) and
// diagnostics — on every example, on a generated 1,000-line policy, and on random edits of
// them (fast-check), while re-parsing only the pieces that changed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from '../../grammar/parse.js';
import { ChunkedParser, pieces } from '../../editor/src/chunked-parse.js';
import { generatePolicy } from '../bench/generate.js';

const EXAMPLES = new URL('../../rules/examples/', import.meta.url).pathname;
const texts = [
  ...readdirSync(EXAMPLES)
    .filter((f) => f.endsWith('.kpol'))
    .map((f) => readFileSync(join(EXAMPLES, f), 'utf8')),
  generatePolicy(300),
  'schedule s = "0 1 * * *" for 1h\r\npolicy a for nodepool x {\r\n  budget 1\r\n}\rpolicy b ' +
    'for nodepool y { budget 2 }',
  '',
  '# only a comment\n',
];

const same = (chunked: ChunkedParser, text: string) =>
  expect(JSON.stringify(chunked.parse(text))).toBe(JSON.stringify(parse(text)));

describe('piecewise parse', () => {
  it('cuts before each top-level line and keeps every character', () => {
    const text =
      'schedule s = "x"\npolicy a for nodepool p {\n  budget 1\n}\n\npolicyx\npolicy b for nodepool q { budget 2 }\n';
    const ps = pieces(text);
    expect(ps.map((p) => p.text).join('')).toBe(text);
    expect(ps.map((p) => [p.line, p.text.split('\n')[0]])).toEqual([
      [0, 'schedule s = "x"'],
      [1, 'policy a for nodepool p {'],
      [6, 'policy b for nodepool q { budget 2 }'],
    ]);
  });

  it.each(texts.map((t, i) => [i, t]))('text %i parses the same as the whole-text parse', (_, text) =>
    same(new ChunkedParser(), text),
  );

  it('re-parses only the piece that changed', () => {
    const chunked = new ChunkedParser();
    const text = generatePolicy(1000);
    chunked.parse(text);
    const edited = text.replace('  budget 5\n', '  budget 6\n');
    same(chunked, edited);
    chunked.parse(edited.replace('  budget 6\n', '  budget 5\n'));
    expect(chunked.lastParsed).toBe(1);
  });

  it('equals the whole-text parse after random edits (including broken text)', () => {
    const alphabet = ['{', '}', '"', '\n', 'policy ', 'schedule ', ' ', 'x', '#', '(', ',', 'budget 1', '\r'];
    fc.assert(
      fc.property(
        fc.constantFrom(...texts.filter((t) => t.length > 0)),
        fc.array(fc.tuple(fc.nat(), fc.nat(3), fc.constantFrom(...alphabet)), { minLength: 1, maxLength: 4 }),
        (base, edits) => {
          const chunked = new ChunkedParser();
          chunked.parse(base);
          let text = base;
          for (const [at, del, ins] of edits) {
            const i = at % (text.length + 1);
            text = text.slice(0, i) + ins + text.slice(i + del);
          }
          expect(JSON.stringify(chunked.parse(text))).toBe(JSON.stringify(parse(text)));
        },
      ),
      { numRuns: 150 },
    );
  });
});
