// SPDX-License-Identifier: Apache-2.0
// The shared parser is built without Chevrotain's grammar validations (they cost start-up time
// and the grammar is fixed); building one with them on keeps grammar mistakes failing CI.
import { describe, expect, it } from 'vitest';
import { tokenize } from '../../grammar/lexer.js';
import { checkGrammar } from '../../grammar/parser.js';

describe('grammar', () => {
  it('passes Chevrotain grammar validations', () => {
    expect(() => checkGrammar()).not.toThrow();
  });

  it('gives every token an inclusive end offset, which node locations are built from', () => {
    const { tokens } = tokenize('budget 20%\n  "x y"');
    expect(tokens.map((t) => [t.image, t.startOffset, t.endOffset])).toEqual([
      ['budget', 0, 5],
      ['20%', 7, 9],
      ['"x y"', 13, 17],
    ]);
  });
});
