// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { byNamespaceAndName, SortedObjects } from '../../src/core/cluster/sorted-objects.js';
import type { KubeObject } from '../../src/core/cluster/types.js';

const obj = (namespace: string, name: string, v: number): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name, resourceVersion: String(v) } }) as KubeObject;

describe('SortedObjects', () => {
  // Read every few steps (a few changes, spliced in) and seldom (many, filtered and merged).
  it.each([10, 60])(
    'matches a fresh sort after any mix of additions, replacements and removals, read 1 in %i steps',
    (every) => {
      const stored = new Map<string, KubeObject>();
      const sorted = new SortedObjects(() => stored);
      let seed = 7;
      const random = (n: number): number => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % n;
      };
      for (let step = 0; step < 3000; step++) {
        const ns = `ns-${random(3)}`;
        const name = `p-${random(40)}`;
        const key = `${ns}/${name}`;
        const previous = stored.get(key);
        const op = random(3);
        if (op === 0 && previous) {
          stored.delete(key);
          sorted.remove(previous);
        } else {
          const next = obj(ns, name, step);
          stored.set(key, next);
          if (previous) sorted.replace(previous, next);
          else sorted.add(next);
        }
        if (random(every) === 0) expect(sorted.read()).toEqual([...stored.values()].sort(byNamespaceAndName));
      }
      expect(sorted.read()).toEqual([...stored.values()].sort(byNamespaceAndName));
    },
  );

  it('hands out the same objects, not copies', () => {
    const a = obj('ns', 'a', 1);
    const sorted = new SortedObjects(() => new Map([['ns/a', a]]));
    expect(sorted.read()[0]).toBe(a);
  });
});
