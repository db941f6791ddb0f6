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

  it('does not keep the records before it alive', async () => {
    const names = Array.from({ length: 50 }, (_, i) => `n${i}`);
    // Plain records (Nodes came or went) and views over them, as a busy month makes them; only
    // the last is kept.
    const made = () => {
      const first = record(names, 'A');
      let last = first;
      for (let i = 0; i < 20; i++) {
        last = withMembers(last, names, [[names[i], verdict(`M${i}`)]], []);
        last = withChanged(last, [[names[i + 1], verdict(`V${i}`)]]);
      }
      return { gone: new WeakRef(first), last };
    };
    const { gone, last } = made();
    expect(await collected(gone)).toBe(true);
    expect(last.n20.blocked[0].code).toBe('V19');
  });
});
