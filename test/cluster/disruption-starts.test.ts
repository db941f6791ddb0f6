// SPDX-License-Identifier: Apache-2.0
// kpol's record of disruption starts (src/core/cluster/disruption-starts.ts): what it reads, what
// an unreadable record becomes, how observed starts join it, pruning and the cap.
import { describe, expect, it } from 'vitest';
import {
  formatStarts,
  mergeStarts,
  observedStart,
  parseStarts,
  startSecond,
  type DisruptionStart,
} from '../../src/core/cluster/disruption-starts.js';
import { makeNodeClaimAndNode } from '../support/cluster-builder.js';

const T = Date.parse('2026-11-23T12:00:00Z');
const DAY = 86_400_000;
const s = (nodeClaim: string, atMs: number, reason: DisruptionStart['reason'] = 'Drifted'): DisruptionStart => ({
  nodeClaim,
  reason,
  atMs,
});

describe("kpol's record of disruption starts", () => {
  it('round-trips, and no annotation is an empty record', () => {
    const starts = [s('a', T), s('b', T - 60_000, 'Empty')];
    expect(parseStarts(formatStarts(starts))).toEqual({ starts });
    expect(parseStarts(undefined)).toEqual({ starts: [] });
    expect(formatStarts(starts)).toBe(
      '[{"nodeClaim":"a","reason":"Drifted","at":"2026-11-23T12:00:00Z"},' +
        '{"nodeClaim":"b","reason":"Empty","at":"2026-11-23T11:59:00Z"}]',
    );
  });

  it('is an error when it cannot be read, never a silently empty record', () => {
    expect(parseStarts('not json')).toEqual({ error: 'is not JSON' });
    expect(parseStarts('{}')).toEqual({ error: 'is not a list' });
    expect(parseStarts('[{"nodeClaim":"a","reason":"Sideways","at":"2026-11-23T12:00:00Z"}]')).toMatchObject({
      error: expect.stringContaining('item 0 needs'),
    });
    expect(parseStarts('[{"nodeClaim":"a","reason":"Drifted","at":"yesterday"}]')).toHaveProperty('error');
  });

  it('rounds start instants up to whole seconds (later, never earlier)', () => {
    expect(startSecond(T + 1)).toBe(T + 1000);
    expect(startSecond(T)).toBe(T);
    expect(parseStarts('[{"nodeClaim":"a","reason":"Drifted","at":"2026-11-23T12:00:00.200Z"}]')).toEqual({
      starts: [s('a', T + 1000)],
    });
  });

  it('joins observed starts once, newest first, forgets starts older than 7 days and keeps at most 1000', () => {
    const merged = mergeStarts([s('a', T - DAY), s('old', T - 7 * DAY)], [s('a', T - DAY), s('b', T)], T);
    expect(merged).toEqual([s('b', T), s('a', T - DAY)]);
    const many = Array.from({ length: 1200 }, (_, i) => s(`n${i}`, T - i * 1000));
    const kept = mergeStarts(many, [], T);
    expect(kept).toHaveLength(1000);
    expect(kept[999]).toEqual(s('n999', T - 999_000));
  });

  it("reads a NodeClaim's DisruptionReason condition as a start, for budgeted reasons only", () => {
    const { nodeClaim } = makeNodeClaimAndNode('web', 0);
    const at = (reason: string, status = 'True', lastTransitionTime?: string) => ({
      ...nodeClaim,
      status: {
        ...nodeClaim.status,
        conditions: [{ type: 'DisruptionReason', status, reason, ...(lastTransitionTime && { lastTransitionTime }) }],
      },
    });
    expect(observedStart(at('Drifted', 'True', '2026-11-23T11:00:00Z'), T)).toEqual(s('web-aaaa0', T - 3_600_000));
    expect(observedStart(at('Drifted', 'False', '2026-11-23T11:00:00Z'), T)).toBeUndefined();
    expect(observedStart(at('SpotInterruption', 'True', '2026-11-23T11:00:00Z'), T)).toBeUndefined();
    // No transition time: counted as starting now, so it stays in every window while the condition lasts.
    expect(observedStart(at('Underutilized'), T)).toEqual(s('web-aaaa0', T, 'Underutilized'));
    expect(observedStart(nodeClaim, T)).toBeUndefined();
  });
});
