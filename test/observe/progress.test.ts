// SPDX-License-Identifier: Apache-2.0
// The CLI progress bar (src/edge/cli/shared/progress.ts) reports a run's progress, so it is tested here.
import { describe, expect, it } from 'vitest';
import { createProgress, formatEta } from '../../src/edge/cli/shared/progress.js';

function tty(isTTY: boolean) {
  const out: string[] = [];
  let t = 0;
  return {
    out,
    advance: (ms: number) => (t += ms),
    stream: { isTTY, columns: 80, write: (s: string) => out.push(s) },
    now: () => t,
  };
}

describe('progress bar', () => {
  it('prints nothing when stdout is not a TTY', () => {
    const s = tty(false);
    const p = createProgress({ total: 10, stream: s.stream, now: s.now });
    for (let i = 0; i <= 10; i++) p.update(i);
    p.finish();
    expect(s.out).toEqual([]);
  });

  it('redraws in place with percent and ETA, then ends the line', () => {
    const s = tty(true);
    const p = createProgress({ total: 200, label: 'simulate', stream: s.stream, now: s.now, minIntervalMs: 0 });
    s.advance(10_000);
    p.update(50);
    expect(s.out[0]).toMatch(/^\rsimulate \[#+-+\] {2}25% ETA 0:30\x1b\[K$/);
    s.advance(20_000);
    p.update(150);
    expect(s.out[1]).toContain(' 75% ETA 0:10');
    p.finish();
    expect(s.out.at(-2)).toContain('100% done in 0:30');
    expect(s.out.at(-1)).toBe('\n');
    expect(s.out.slice(0, -1).every((l) => l.startsWith('\r') && !l.includes('\n'))).toBe(true);
  });

  it('throttles redraws but always draws completion', () => {
    const s = tty(true);
    const p = createProgress({ total: 1000, stream: s.stream, now: s.now, minIntervalMs: 100 });
    for (let i = 1; i < 1000; i++) {
      s.advance(1);
      p.update(i);
    }
    expect(s.out.length).toBeLessThanOrEqual(11);
    p.update(1000);
    expect(s.out.at(-1)).toContain('100%');
  });

  it('fits the bar into narrow terminals', () => {
    const s = tty(true);
    s.stream.columns = 40;
    const p = createProgress({ total: 4, label: 'x', stream: s.stream, now: s.now, minIntervalMs: 0 });
    p.update(1);
    expect(s.out[0].replace(/\r|\x1b\[K/g, '').length).toBeLessThanOrEqual(40);
  });

  it.each([
    [0, '0:00'],
    [7_400, '0:07'],
    [750_000, '12:30'],
    [3_723_000, '1:02:03'],
  ])('formatEta(%i) is %s', (ms, text) => {
    expect(formatEta(ms)).toBe(text);
  });
});
