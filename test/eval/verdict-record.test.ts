// SPDX-License-Identifier: Apache-2.0
// Records made from the last one (src/core/eval/verdict-record.ts) say what changed only to a
// reader that holds the record they were made from, and never keep that record alive themselves:
// a simulated month makes one every tick, and a chain of them from the first tick on held ~20 MB
// more per simulated hour at 5,000 nodes.
import { describe, expect, it } from 'vitest';
import { ownRecord } from '../../src/core/cluster/own-keys.js';
import type { NodeResult } from '../../src/core/eval/output.js';
import { changeOf, differenceOf, withChanged, withMembers } from '../../src/core/eval/verdict-record.js';
import { collected } from '../support/collected.js';

const verdict = (code: string) =>
  ({ nodePool: 'p', candidate: false, reasons: [], blocked: [{ code, message: code }] }) as unknown as NodeResult;
const record = (names: string[], code: string) => ownRecord(Object.fromEntries(names.map((n) => [n, verdict(code)])));

describe('a record made from the last one', () => {
  it('names its change to a reader holding the record it was made from, and to no other', () => {
    const a = record(['n1', 'n2', 'n3'], 'A');
    const b = withChanged(a, [['n2', verdict('B')]]);
    const c = withMembers(b, ['n1', 'n3', 'n4'], [['n4', verdict('C')]], ['n2']);
    expect(changeOf(b, a)).toEqual(['n2']);
    expect(changeOf(b, c)).toBeUndefined();
    expect(changeOf(b, record(['n1', 'n2', 'n3'], 'A'))).toBeUndefined(); // equal, but not the one
    expect(differenceOf(c, b)).toEqual(['n4', 'n2']);
    expect(differenceOf(c, a)).toBeUndefined();
    expect(changeOf(c, b)).toBeUndefined(); // names differ: not a view of b
    expect(Object.keys(c)).toEqual(['n1', 'n3', 'n4']);
    expect(c.n1).toBe(a.n1);
  });

  it('keeps no record before it alive but the one base its view reads, until the changes outgrow it', async () => {
    const names = Array.from({ length: 400 }, (_, i) => `n${i}`);
    // Records made from the last one every tick, as a busy month makes them; only the last is kept.
    const made = () => {
      const first = record(names, 'A');
      let last = first;
      let early: WeakRef<object> | undefined;
      for (let i = 0; i < 300; i++) {
        last = withMembers(last, names, [[names[i], verdict(`M${i}`)]], []);
        if (i === 5) early = new WeakRef(last);
        last = withChanged(last, [[names[i + 1], verdict(`V${i}`)]]);
      }
      return { first: new WeakRef(first), early: early!, last };
    };
    const { first, early, last } = made();
    expect(await collected(early)).toBe(true);
    // 301 names changed: past COMPACT_AT (256) a plain record was made, and the first let go.
    expect(await collected(first)).toBe(true);
    expect(last.n300.blocked[0].code).toBe('V299');
  });

  it('reads like the plain record of the same entries, through Nodes coming, going and coming back', () => {
    // A seeded walk of changes, long enough to pass COMPACT_AT more than once; after each, the
    // record is compared with a model: keys in order, lookups, `in`, entries and JSON.
    let seed = 7;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const universe = Array.from({ length: 400 }, (_, i) => `n${String(i).padStart(3, '0')}`);
    let model = new Map(universe.slice(0, 300).map((n) => [n, verdict('A')]));
    let rec = record([...model.keys()], 'A');
    for (const k of model.keys()) model.set(k, rec[k]);
    for (let step = 0; step < 600; step++) {
      if (rand(3) > 0) {
        const present = [...model.keys()];
        const changed = Array.from({ length: 1 + rand(3) }, () => present[rand(present.length)]);
        const pairs = [...new Set(changed)].map((n) => [n, verdict(`S${step}`)] as const);
        rec = withChanged(rec, pairs);
        for (const [n, v] of pairs) model.set(n, v);
      } else {
        const gone = [...model.keys()].filter(() => rand(60) === 0);
        // A name may go and come back in one change (a Node replaced under the same name).
        const came = universe.filter((n) => (!model.has(n) || gone.includes(n)) && rand(20) === 0);
        const next = new Map([...model].filter(([n]) => !gone.includes(n)));
        const pairs = came.map((n) => [n, verdict(`C${step}`)] as const);
        for (const [n, v] of pairs) next.set(n, v);
        model = new Map([...next].sort(([a], [b]) => (a < b ? -1 : 1)));
        rec = withMembers(rec, [...model.keys()], pairs, gone);
      }
      expect(Object.keys(rec)).toEqual([...model.keys()]);
      for (const n of Array.from({ length: 40 }, () => universe[rand(universe.length)])) {
        expect(rec[n]).toBe(model.get(n));
        expect(n in rec).toBe(model.has(n));
      }
      expect(JSON.stringify(rec)).toBe(JSON.stringify(Object.fromEntries(model)));
    }
  });
});
