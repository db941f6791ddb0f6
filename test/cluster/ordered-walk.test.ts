// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { walkOrdered } from '../../src/core/cluster/ordered-walk.js';

interface Item {
  key: number;
}
const byKey = (a: Item, b: Item): number => a.key - b.key;

/** The steps of a walk as text: `=k` the same object, `~k` changed, `-k` gone, `+k` came. */
function steps(prev: Item[], next: Item[], limit = Infinity): string[] | undefined {
  const out: string[] = [];
  const walked = walkOrdered(prev, next, byKey, limit, (i, j) => {
    if (j < 0) out.push(`-${prev[i].key}`);
    else if (i < 0) out.push(`+${next[j].key}`);
    else out.push(`${prev[i] === next[j] ? '=' : '~'}${next[j].key}`);
  });
  return walked ? out : undefined;
}

describe('walkOrdered', () => {
  it('pairs every place of both lists, by identity or by key, in order', () => {
    let seed = 11;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      const prev: Item[] = [];
      for (let k = 0; k < 40; k++) if (random(3) > 0) prev.push({ key: k });
      const expected: string[] = [];
      const next: Item[] = [];
      const kept = new Map(prev.map((x) => [x.key, x]));
      for (let k = 0; k < 40; k++) {
        const was = kept.get(k);
        const roll = random(6);
        if (was && roll === 0) expected.push(`-${k}`);
        else if (was && roll === 1) {
          next.push({ key: k });
          expected.push(`~${k}`);
        } else if (was) {
          next.push(was);
          expected.push(`=${k}`);
        } else if (roll === 0) {
          next.push({ key: k });
          expected.push(`+${k}`);
        }
      }
      expect(steps(prev, next)).toEqual(expected);
    }
  });

  it('gives up past the limit of differing places, and when the new list is out of order where it differs', () => {
    const a = [0, 1, 2, 3].map((key) => ({ key }));
    expect(steps(a, [a[0], { key: 1 }, { key: 2 }, a[3]], 1)).toBeUndefined();
    expect(steps(a, [a[0], { key: 1 }, { key: 2 }, a[3]], 2)).toEqual(['=0', '~1', '~2', '=3']);
    // 5 before 4: the walk cannot pair them by order.
    expect(steps(a, [a[0], a[1], a[2], a[3], { key: 5 }, { key: 4 }])).toBeUndefined();
    expect(steps([], [{ key: 2 }, { key: 1 }])).toBeUndefined();
    expect(steps(a, [])).toEqual(['-0', '-1', '-2', '-3']);
  });
});
