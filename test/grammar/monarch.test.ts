// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { kpolMonarch } from '../../grammar/monarch.js';
import { KEYWORDS, REASONS } from '../../grammar/tokens.js';

/** Applies the root rules the way Monarch does: first match at the current position wins. */
function classify(text: string): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > 0) {
    const rule = kpolMonarch.tokenizer['root']!.find(([re]) => new RegExp(`^(?:${re.source})`).test(rest));
    if (!rule) throw new Error(`no rule matches ${rest}`);
    const image = new RegExp(`^(?:${rule[0].source})`).exec(rest)![0];
    const action = rule[1];
    const kind =
      typeof action === 'string'
        ? action
        : kpolMonarch.keywords.includes(image)
          ? action.cases['@keywords']!
          : kpolMonarch.reasons.includes(image)
            ? action.cases['@reasons']!
            : action.cases['@default']!;
    if (kind !== 'white') out.push(`${kind}:${image}`);
    rest = rest.slice(image.length);
  }
  return out;
}

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
