// SPDX-License-Identifier: Apache-2.0
// The timeline's blocked counts per code (src/edge/simulate/first-blocks.ts), followed through
// records made from the last one by a few changed, new or gone verdicts (verdict-record.ts
// withChanged and withMembers), add up tick after tick to exactly what counting every node of
// every record gives: the same codes in the same first-seen order, counts and example messages.
// The simulation's own equality test (verdict-reuse.test.ts) rarely meets a code for the first
// time through a followed change; here codes appear for the first time that way all the time.
import { describe, expect, it } from 'vitest';
import { ownRecord } from '../../src/core/cluster/own-keys.js';
import type { NodeResult } from '../../src/core/eval/output.js';
import { differenceOf, withChanged, withMembers } from '../../src/core/eval/verdict-record.js';
import { FirstBlocks } from '../../src/edge/simulate/first-blocks.js';
import { seededRandom } from '../support/seeded-random.js';

/** A node's verdict at a step: blocked by up to two codes of a few, the few moving on with the steps (new codes). */
function verdict(r: () => number, codes: number, step = 0): NodeResult {
  const blocked = Array.from({ length: Math.floor(r() * 3) }, () => {
    const code = `Code${Math.floor(step / 6) + Math.floor(r() * codes)}`;
    return { code, message: `${code} because ${Math.floor(r() * 5)}` };
  });
  return { nodePool: 'p', candidate: false, reasons: [], blocked } as unknown as NodeResult;
}

/** What simulated-run.ts accumulates: per code, the count over every tick and the example it met first. */
type Blocked = Map<string, { count: number; example: string }>;

function accumulate(into: Blocked, firsts: ReadonlyMap<string, { count: number; message: string }>): void {
  for (const [code, b] of firsts) {
    const entry = into.get(code) ?? { count: 0, example: b.message };
    entry.count += b.count;
    into.set(code, entry);
  }
}

describe('blocked counts followed through changed verdicts', () => {
  it.each([1, 2, 3, 4, 5, 6])('add up to counting every node at every tick, run %i', (seed) => {
    const r = seededRandom(seed * 7_919);
    const codes = 2 + Math.floor(r() * 4);
    let names = Array.from({ length: 5 + Math.floor(r() * 40) }, (_, i) => `node-${String(i).padStart(3, '0')}`);
    let nodes = ownRecord(Object.fromEntries(names.map((n) => [n, verdict(r, codes)])));
    let next = names.length;
    const followed = new FirstBlocks();
    const fresh = new FirstBlocks();
    const got: Blocked = new Map();
    const want: Blocked = new Map();
    let differences = 0;
    for (let step = 0; step < 400; step++) {
      const changed = names.filter(() => r() < 0.15).map((n) => [n, verdict(r, codes, step)] as const);
      // In any order: a record says which names changed, not in which order they come in it.
      for (let i = changed.length - 1; i > 0; i--) {
        const j = Math.floor(r() * (i + 1));
        [changed[i], changed[j]] = [changed[j], changed[i]];
      }
      if (r() < 0.3) {
        // Nodes come (anywhere in name order) and go.
        const gone = names.filter(() => r() < 0.05);
        const came = Array.from(
          { length: Math.floor(r() * 3) },
          () => `node-${String(next++ % 1000).padStart(3, '0')}`,
        );
        names = [...new Set([...names.filter((n) => !gone.includes(n)), ...came])].sort();
        const over = [
          ...changed.filter(([n]) => !gone.includes(n)),
          ...came.map((n) => [n, verdict(r, codes, step)] as const),
        ];
        nodes = withMembers(nodes, names, over, gone);
      } else nodes = withChanged(nodes, changed);
      if (differenceOf(nodes)) differences++;
      accumulate(
        got,
        followed.of(nodes, (code) => got.has(code)),
      );
      // A plain copy of the same verdicts: no difference to follow, every node counted.
      accumulate(
        want,
        fresh.of(ownRecord({ ...nodes }), (code) => want.has(code)),
      );
      expect([...got], `seed ${seed} step ${step}`).toEqual([...want]);
    }
    expect(differences).toBeGreaterThan(300);
    // Codes kept coming: most of them were met first through a followed change.
    expect(got.size).toBeGreaterThan(40);
  });
});
