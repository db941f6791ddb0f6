// SPDX-License-Identifier: Apache-2.0
// The shared-memory slot the check worker writes each answer into: what one side writes the
// other reads whole, under the request's own number only; an answer too large for the slot
// leaves it empty; and a copy overtaken by a new write is never returned. A second slot over
// the same buffer stands in for the page's side (Node shares the memory the same way).
import { describe, expect, it } from 'vitest';
import { AnswerSlot } from '../../editor/src/answer-slot.js';

const pair = (bytes = 1024) => {
  const worker = AnswerSlot.create(bytes)!;
  return { worker, page: new AnswerSlot(worker.buffer) };
};

describe('AnswerSlot', () => {
  it('returns what was written, to the request it answers and to no other', () => {
    const { worker, page } = pair();
    const answer = [
      {
        code: 'KPOL2001',
        message: 'unknown reason `Driftedx` — did you mean `Drifted`? “quotes” and ✓',
        range: { start: { line: 1, character: 15 } },
      },
    ];
    expect(page.read(1)).toBeUndefined();
    expect(worker.write(7, answer)).toBe(true);
    expect(page.read(7)).toEqual(answer);
    expect(page.read(6)).toBeUndefined();
    expect(page.read(8)).toBeUndefined();
    expect(worker.write(8, [])).toBe(true);
    expect(page.read(7)).toBeUndefined();
    expect(page.read(8)).toEqual([]);
  });

  it('leaves the slot empty when the answer does not fit, so the message answers instead', () => {
    const { worker, page } = pair(64);
    expect(worker.write(1, 'short')).toBe(true);
    expect(worker.write(2, 'x'.repeat(100))).toBe(false);
    expect(page.read(1)).toBeUndefined();
    expect(page.read(2)).toBeUndefined();
  });

  it('never returns a copy that a new write overtook', () => {
    const { worker, page } = pair();
    worker.write(3, { text: 'a'.repeat(200) });
    // Overwrite while the page copies: the first header read sees 3, the write lands, the second sees the new number.
    const header = new Int32Array(worker.buffer, 0, 2);
    const load = Atomics.load;
    let reads = 0;
    Atomics.load = ((a: Int32Array, i: number) => {
      if (a.buffer === header.buffer && i === 1 && reads++ === 0) worker.write(4, { text: 'b'.repeat(50) });
      return load(a, i);
    }) as unknown as typeof Atomics.load;
    try {
      expect(page.read(3)).toBeUndefined();
    } finally {
      Atomics.load = load;
    }
    expect(page.read(4)).toEqual({ text: 'b'.repeat(50) });
  });
});
