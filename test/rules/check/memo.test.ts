// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { memoByText } from '../../../rules/memo.js';

describe('memoByText', () => {
  it('computes each distinct text once, undefined results included', () => {
    const calls: string[] = [];
    const f = memoByText((t) => {
      calls.push(t);
      return t === 'x' ? undefined : t.length;
    });
    expect([f('ab'), f('x'), f('ab'), f('x')]).toEqual([2, undefined, 2, undefined]);
    expect(calls).toEqual(['ab', 'x']);
  });

  it('starts again from empty once full', () => {
    const calls: string[] = [];
    const f = memoByText((t) => {
      calls.push(t);
      return t;
    }, 2);
    ['a', 'b', 'c', 'a'].forEach(f);
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
  });
});
