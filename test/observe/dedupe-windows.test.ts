// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { DedupeWindows } from '../../src/core/observe/dedupe-windows.js';
import { EventLog } from '../../src/core/observe/event-log.js';
import type { EventToPublish, InvolvedObject } from '../../src/core/observe/recorder.js';

const ev = (object: InvolvedObject, reason: string, message: string): EventToPublish => ({
  type: 'Normal',
  reason,
  message,
  object,
});

describe('DedupeWindows', () => {
  it('an object keyed by uid and one keyed by a reference spelled the same stay apart', () => {
    const w = new DedupeWindows();
    // The uid happens to read like another object's kind/namespace/name key.
    expect(w.within(ev({ kind: 'Node', name: 'x', uid: 'Node//n1' }, 'R', 'm'), 0, 10)).toBeUndefined();
    expect(w.within(ev({ kind: 'Node', name: 'n1' }, 'R', 'm'), 0, 10)).toBeUndefined();
    expect(w.within(ev({ kind: 'Node', name: 'n1' }, 'R', 'm'), 5, 15)).toBe(10);
    expect(w.size).toBe(2);
  });

  it('reason and message are separate keys, not joined text', () => {
    const w = new DedupeWindows();
    const o = { kind: 'Node', name: 'n1' };
    expect(w.within(ev(o, 'a\u0000b', 'c'), 0, 10)).toBeUndefined();
    expect(w.within(ev(o, 'a', 'b\u0000c'), 0, 10)).toBeUndefined();
    expect(w.size).toBe(2);
  });

  it('a sweep drops the windows that ended and keeps the others, and the counts with them', () => {
    const w = new DedupeWindows();
    for (let i = 0; i < 6; i++)
      w.within(ev({ kind: 'Node', name: `n${i}`, uid: `u${i}` }, 'R', 'm'), 0, i < 3 ? 10 : 100);
    w.within(ev({ kind: 'Pod', name: 'p', namespace: 'ns' }, 'R', 'm'), 0, 10);
    w.within(ev({ kind: 'Pod', name: 'p', namespace: 'ns' }, 'R', 'other'), 0, 100);
    expect(w.size).toBe(8);
    w.sweep(10); // a window ending at 10 still holds at 10
    expect(w.size).toBe(8);
    w.sweep(11);
    expect(w.size).toBe(4);
    // The ended ones open again; the live ones still drop their repeats.
    expect(w.within(ev({ kind: 'Node', name: 'n0', uid: 'u0' }, 'R', 'm'), 11, 20)).toBeUndefined();
    expect(w.within(ev({ kind: 'Node', name: 'n4', uid: 'u4' }, 'R', 'm'), 11, 20)).toBe(100);
    expect(w.within(ev({ kind: 'Pod', name: 'p', namespace: 'ns' }, 'R', 'other'), 11, 20)).toBe(100);
    expect(w.size).toBe(5);
  });

  it("the log's windows stay bounded by the live ones over many distinct events", () => {
    const clock = new FakeClock(0);
    const log = new EventLog(clock, { capacity: 10 });
    let peak = 0;
    for (let i = 0; i < 5_000; i++) {
      log.publish({ type: 'Normal', reason: 'R', message: `m${i}`, object: { kind: 'Node', name: 'n' } }, 1_000);
      clock.advance(10); // 100 windows live at a time
      peak = Math.max(peak, (log as unknown as { windows: DedupeWindows }).windows.size);
    }
    // A sweep runs past max(4 × capacity, twice the windows the last sweep left), and at most
    // 101 windows are live: without sweeps the count would reach 5,000.
    expect(peak).toBeLessThanOrEqual(2 * 101 + 1);
  });
});
