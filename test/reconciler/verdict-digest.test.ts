// SPDX-License-Identifier: Apache-2.0
// The verdict digest followed through records made from the last one by a few changed verdicts
// (src/core/eval/verdict-record.ts) equals the digest built afresh over the same verdicts: the
// candidates per reason and the blocked nodes, in evaluation order, after every change of a
// generated run in which reasons come and go (a reason's last candidate leaving and another
// joining in one change among them) and blocks appear and clear.
import { describe, expect, it } from 'vitest';
import { ownRecord } from '../../src/core/cluster/own-keys.js';
import type { EvalOutput, NodeResult } from '../../src/core/eval/output.js';
import { changeOf, withChanged } from '../../src/core/eval/verdict-record.js';
import { digestOf } from '../../src/control/reconciler/methods/verdict-digest.js';
import type { Reason } from '../../rules/model.js';
import { seededRandom } from '../support/seeded-random.js';

const REASONS: Reason[] = ['Empty', 'Drifted', 'Underutilized'];

function verdict(r: () => number): NodeResult {
  const reasons = REASONS.filter(() => r() < 0.15);
  const blocked = r() < 0.4 ? [{ code: 'PDBBlocked', message: `blocked ${Math.floor(r() * 3)}` }] : [];
  return { nodePool: 'p', candidate: reasons.length > 0, reasons, blocked } as NodeResult;
}

const evaluation = (nodes: Record<string, NodeResult>) =>
  ({ nodes, nodePools: {}, warnings: [] }) as unknown as EvalOutput;

describe('verdict digest followed through changed verdicts', () => {
  it.each([1, 2, 3, 4, 5])('equals the digest built afresh, run %i', (seed) => {
    const r = seededRandom(seed);
    const names = Array.from({ length: 5 + Math.floor(r() * 40) }, (_, i) => `node-${i}`);
    let nodes = ownRecord(Object.fromEntries(names.map((n) => [n, verdict(r)])));
    digestOf(evaluation(nodes));
    let followed = 0;
    for (let step = 0; step < 400; step++) {
      const changed = names.filter(() => r() < 0.06).map((n) => [n, verdict(r)] as const);
      nodes = withChanged(nodes, changed);
      const got = digestOf(evaluation(nodes));
      if (got.change && changeOf(nodes)) followed++;
      const want = digestOf(evaluation(ownRecord({ ...nodes })));
      const sorted = (m: ReadonlyMap<Reason, readonly string[]>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));
      expect(sorted(got.byReason), `seed ${seed} step ${step}`).toEqual(sorted(want.byReason));
      expect(got.blocked, `seed ${seed} step ${step}`).toEqual(want.blocked);
    }
    // Most digests were followed from the last one, not built (the record is compacted now and then).
    expect(followed).toBeGreaterThan(300);
  });
});
