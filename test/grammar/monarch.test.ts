// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { kpolMonarch } from '../../grammar/monarch.js';
import { KEYWORDS, REASONS } from '../../grammar/tokens.js';
import { classify } from './monarch-classify.js';

describe('kpolMonarch', () => {
  it('takes keywords and reasons from the token definitions', () => {
    expect([...kpolMonarch.keywords].sort()).toEqual([...KEYWORDS].sort());
    expect(kpolMonarch.keywords).toContain('disruptable');
    expect(kpolMonarch.reasons).toEqual([...REASONS]);
  });

  it('classifies a statement like the lexer does', () => {
    expect(classify('budget 20% for Drifted during "0 1 * * *" for 1h30m # c')).toEqual([
      'keyword:budget',
      'number.percent:20%',
      'keyword:for',
      'type:Drifted',
      'keyword:during',
      'string:"0 1 * * *"',
      'keyword:for',
      'number.duration:1h30m',
      'comment:# c',
    ]);
    expect(classify('windows-pool 5mx 2a 5 !a')).toEqual([
      'identifier:windows-pool',
      'identifier:5mx',
      'identifier:2a',
      'number:5',
      'operator:!',
      'identifier:a',
    ]);
    expect(classify('timezone "Europe')).toEqual(['keyword:timezone', 'string.invalid:"Europe']);
  });
});
