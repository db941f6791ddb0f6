// SPDX-License-Identifier: Apache-2.0
// Rate budgets in the budget arithmetic (rules/budgets.ts, rules/README §3.6.1), through the
// compiled pool rules: the sliding window's edges, reasons, percentages rounded up, the binding
// rule, the unreadable record (fail closed) and the full record.
import { describe, expect, it } from 'vitest';
import { allowanceFor, countStarts, nextRateSlot, type StartCount, type StartInstant } from '../../rules/budgets.js';
import { checkSource } from '../../rules/checks/check.js';
import { GraphEngine } from '../../rules/engine.js';
import { compile } from '../../rules/compile.js';
import type { Reason } from '../../rules/model.js';

const H = 3_600_000;
const T = Date.parse('2026-11-23T12:00:00Z');

async function eventsOf(body: string) {
  const { value, diagnostics } = checkSource(`policy p for nodepool default {\n${body}\n}\n`);
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return new GraphEngine(compile(value[0]!)).runPool({ now: T, budgetErrors: 0 } as never);
}

const start = (reason: Reason, agoMs: number): StartInstant => ({ reason, atMs: T - agoMs });
const counter =
  (starts: StartInstant[], cap = 1000): StartCount =>
  (per, reasons) =>
    countStarts(starts, T, per, reasons, cap);

describe('rate budgets', () => {
  it('count the starts in (now − D, now]: a start exactly D ago has left the window', () => {
    const starts = [start('Drifted', 0), start('Drifted', H - 1000), start('Drifted', H)];
    expect(countStarts(starts, T, 3600, null, 1000)).toBe(2);
    expect(countStarts(starts, T, 3601, null, 1000)).toBe(3);
    expect(countStarts(starts, T, 3600, ['Empty'], 1000)).toBe(0);
  });

  it('leave max(N − started, 0) for the reasons they name, and only those', async () => {
    const events = await eventsOf('  budget 2 per 1h for Drifted');
    const two = counter([start('Drifted', 10 * 60_000), start('Drifted', 50 * 60_000), start('Empty', 1000)]);
    expect(allowanceFor(events, 'Drifted', { nodes: 10, disrupting: 0, started: two })).toMatchObject({
      budget: 0,
      allowed: 0,
      boundBy: 'budget:b0',
    });
    const one = counter([start('Drifted', 10 * 60_000), start('Empty', 1000)]);
    expect(allowanceFor(events, 'Drifted', { nodes: 10, disrupting: 0, started: one })).toMatchObject({
      budget: 1,
      allowed: 1,
    });
    // No budget names Empty: unlimited, whatever started.
    expect(allowanceFor(events, 'Empty', { nodes: 10, disrupting: 0, started: two })).toEqual({
      budget: null,
      allowed: null,
    });
  });

  it('are not reduced by the disrupting nodes again; the concurrency budget is, and the smaller binds', async () => {
    const events = await eventsOf('  budget 3\n  budget 2 per 1h');
    const none = counter([]);
    // Concurrency 3 − 2 disrupting = 1 binds against a rate with 2 left.
    expect(allowanceFor(events, 'Drifted', { nodes: 10, disrupting: 2, started: none })).toMatchObject({
      budget: 2,
      allowed: 1,
      boundBy: 'budget:b0',
    });
    // One started within the hour: the rate leaves 1, as does concurrency 3 − 2; the rate binds at equality.
    const one = counter([start('Underutilized', 60_000)]);
    expect(allowanceFor(events, 'Drifted', { nodes: 10, disrupting: 2, started: one })).toMatchObject({
      allowed: 1,
      boundBy: 'budget:b1',
    });
    expect(allowanceFor(events, 'Drifted', { nodes: 10, disrupting: 0, started: one })).toMatchObject({
      budget: 1,
      allowed: 1,
      quantity: { kind: 'count', value: 1 },
    });
  });

  it('take a percentage of the counted nodes, rounded up as budgets are', async () => {
    const events = await eventsOf('  budget 30% per 10m');
    expect(allowanceFor(events, 'Empty', { nodes: 7, disrupting: 0, started: counter([]) })).toMatchObject({
      allowed: 3,
    }); // ceil(2.1)
    expect(
      allowanceFor(events, 'Empty', { nodes: 7, disrupting: 0, started: counter([start('Empty', 60_000)]) }),
    ).toMatchObject({
      allowed: 2,
    });
    expect(allowanceFor(events, 'Empty', { nodes: 0, disrupting: 0, started: counter([]) })).toMatchObject({
      allowed: 0,
    });
  });

  it('allow nothing when the record cannot be read, or when no record was given (fail closed)', async () => {
    const events = await eventsOf('  budget 5\n  budget 2 per 1h for Drifted');
    expect(allowanceFor(events, 'Drifted', { nodes: 10, disrupting: 0, started: () => undefined })).toMatchObject({
      allowed: 0,
    });
    expect(allowanceFor(events, 'Drifted', { nodes: 10, disrupting: 0 })).toMatchObject({ allowed: 0 });
    // Reasons the rate does not name keep their own budget.
    expect(allowanceFor(events, 'Empty', { nodes: 10, disrupting: 0, started: () => undefined })).toMatchObject({
      allowed: 5,
    });
  });

  it('count a full record whose oldest start is in the window as unbounded (starts may be forgotten)', () => {
    const full = Array.from({ length: 3 }, (_, i) => start('Drifted', i * 60_000));
    expect(countStarts(full, T, 3600, null, 3)).toBe(Number.POSITIVE_INFINITY);
    expect(countStarts(full, T, 60, null, 3)).toBe(1); // the oldest has left a 1-minute window
  });

  it('say when the next start is allowed: when the N-th newest start leaves the window', () => {
    const starts = [start('Drifted', 5 * 60_000), start('Drifted', 20 * 60_000), start('Drifted', 40 * 60_000)];
    expect(nextRateSlot(starts, T, 3600, null, 2)).toBe(T - 20 * 60_000 + H);
    expect(nextRateSlot(starts, T, 3600, null, 3)).toBe(T - 40 * 60_000 + H);
    expect(nextRateSlot(starts, T, 3600, null, 4)).toBeUndefined();
  });
});
