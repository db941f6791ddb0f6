// SPDX-License-Identifier: Apache-2.0
// The words of a move whose pods would not all schedule (KARPENTER.md#events-and-metrics):
// Karpenter's Results.NonPendingPodSchedulingErrors, capitalised as pretty.Sentence does.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/core/cluster/types.js';
import { schedulingErrors } from '../../src/control/reconciler/move-simulation.js';
import { makePod } from '../support/cluster-builder.js';

const pods = (n: number): Pod[] => Array.from({ length: n }, (_, i) => makePod(`p${i}`, 'n', { namespace: 'ns' }));
const failing = (list: Pod[]) => new Map(list.map((p, i) => [p, `error ${i}`]));

describe('schedulingErrors', () => {
  it('names each pod with its error, each followed by a space', () => {
    expect(schedulingErrors(failing(pods(2)), new Set())).toBe(
      'Not all pods would schedule, ns/p0 => error 0 ns/p1 => error 1 ',
    );
  });
  it('names five, then counts the others, also when none is left', () => {
    const five = 'Not all pods would schedule, ' + [0, 1, 2, 3, 4].map((i) => `ns/p${i} => error ${i} `).join('');
    expect(schedulingErrors(failing(pods(5)), new Set())).toBe(`${five} and 0 other(s)`);
    expect(schedulingErrors(failing(pods(7)), new Set())).toBe(`${five} and 2 other(s)`);
  });
  it("leaves pending pods' errors out", () => {
    const list = pods(3);
    expect(schedulingErrors(failing(list), new Set([list[0], list[2]]))).toBe(
      'Not all pods would schedule, ns/p1 => error 1 ',
    );
    expect(schedulingErrors(failing(list), new Set(list))).toBe('No Pod Scheduling Errors');
  });
});
