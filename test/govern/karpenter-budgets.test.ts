// SPDX-License-Identifier: Apache-2.0
// What govern mode writes into spec.disruption.budgets, checked against Karpenter's rules for
// budgets (KARPENTER.md#budget-reasons): the minimum of the active budgets per reason, each dated
// budget active on [hit, hit + duration) in UTC.
import { describe, expect, it } from 'vitest';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import {
  ceilMinute,
  DATED_BUDGET_DURATION,
  governedBudgets,
  yearlyCron,
} from '../../src/control/govern/karpenter-budgets.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import type { KarpenterBudget } from '../../src/core/cluster/types.js';

const MIN = 60_000;

function policyOf(body: string) {
  const loaded = loadPolicies([{ fileName: 'p.kpol', text: `policy p for nodepool default {\n${body}\n}\n` }]);
  expect(loaded.files[0].diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return loaded.policies[0];
}

async function budgetsAt(body: string, nowIso: string, nodes = 10, leaseMin = 2): Promise<KarpenterBudget[]> {
  const policy = policyOf(body);
  const ev = new Evaluator();
  const now = Date.parse(nowIso);
  return governedBudgets((t) => ev.poolEvents(policy, t), now, nodes, ceilMinute(now + leaseMin * MIN));
}

/**
 * Karpenter's reading of a budget list at an instant (its GetAllowedDisruptionsByReason, for the yearly crons written
 * here).
 */
function karpenterAllows(budgets: KarpenterBudget[], reason: string, atMs: number, nodes: number): number {
  let min = 2147483647;
  for (const b of budgets) {
    if (b.reasons && !b.reasons.includes(reason)) continue;
    if (b.schedule) {
      const [mi, h, d, mo] = b.schedule.split(' ').map(Number);
      const year = new Date(atMs).getUTCFullYear();
      const hits = [year - 1, year].map((y) => Date.UTC(y, mo - 1, d, h, mi));
      const hours = Number(b.duration!.replace('h', ''));
      if (!hits.some((hit) => hit <= atMs && atMs < hit + hours * 3_600_000)) continue;
    }
    const text = b.nodes ?? '10%';
    const v = text.endsWith('%') ? Math.ceil((Number(text.slice(0, -1)) * nodes) / 100) : Number(text);
    min = Math.min(min, v);
  }
  return min;
}

describe('govern mode budgets', () => {
  it('yearly crons and the minute grid', () => {
    expect(yearlyCron(Date.parse('2026-11-25T13:07:00Z'))).toBe('7 13 25 11 *');
    expect(ceilMinute(Date.parse('2026-11-25T13:07:00.001Z'))).toBe(Date.parse('2026-11-25T13:08:00Z'));
    expect(ceilMinute(Date.parse('2026-11-25T13:07:00Z'))).toBe(Date.parse('2026-11-25T13:07:00Z'));
  });

  it(
    'an open allow window in Berlin: its quantity now, a deny from its close, a deny from the ' + 'renewal instant',
    async () => {
      // 02:00–03:00 Berlin (CET, UTC+1) = 01:00–02:00 UTC; now 01:59:10 UTC, lease 2 minutes.
      const b = await budgetsAt(
        'allow 1 Drifted only during "0 2 * * *" for 1h in "Europe/Berlin"\nbudget 100%',
        '2026-11-25T01:59:10Z',
      );
      expect(b).toEqual([
        { nodes: '100%', reasons: ['Empty', 'Underutilized'] },
        { nodes: '1', reasons: ['Drifted'] },
        { nodes: '0', reasons: ['Drifted'], schedule: '0 2 25 11 *', duration: DATED_BUDGET_DURATION },
        { nodes: '0', schedule: '2 2 25 11 *', duration: DATED_BUDGET_DURATION },
      ]);
      const at = (iso: string) => karpenterAllows(b, 'Drifted', Date.parse(iso), 10);
      expect(at('2026-11-25T01:59:59Z')).toBe(1);
      expect(at('2026-11-25T02:00:00Z')).toBe(0); // the window closed, kpol or no kpol
      expect(karpenterAllows(b, 'Empty', Date.parse('2026-11-25T02:01:59Z'), 10)).toBe(10);
      expect(karpenterAllows(b, 'Empty', Date.parse('2026-11-25T02:02:00Z'), 10)).toBe(0); // fail closed
      // and stays so for almost a year
      expect(karpenterAllows(b, 'Empty', Date.parse('2027-11-20T00:00:00Z'), 10)).toBe(0);
    },
  );

  it('a closed window is 0 now; a window opening later is not anticipated (kpol opens it when it comes)', async () => {
    const b = await budgetsAt(
      'allow 2 Drifted only during "0 2 * * *" for 1h in "Europe/Berlin"',
      '2026-11-25T00:59:30Z',
    );
    expect(b[0]).toEqual({ nodes: '0', reasons: ['Drifted'] });
    expect(karpenterAllows(b, 'Drifted', Date.parse('2026-11-25T01:00:30Z'), 10)).toBe(0);
    // no budget for Empty: unlimited
    expect(karpenterAllows(b, 'Empty', Date.parse('2026-11-25T01:00:30Z'), 10)).toBe(2147483647);
  });

  it('a freeze starting inside the lease is written ahead as a dated budget', async () => {
    const b = await budgetsAt(
      'freeze Underutilized from "2026-11-25 10:01" to "2026-11-26 00:00" in "UTC"\nbudget 3',
      '2026-11-25T10:00:20Z',
    );
    expect(b).toContainEqual({
      nodes: '0',
      reasons: ['Underutilized'],
      schedule: '1 10 25 11 *',
      duration: DATED_BUDGET_DURATION,
    });
    expect(karpenterAllows(b, 'Underutilized', Date.parse('2026-11-25T10:00:59Z'), 10)).toBe(3);
    expect(karpenterAllows(b, 'Underutilized', Date.parse('2026-11-25T10:01:00Z'), 10)).toBe(0);
    expect(karpenterAllows(b, 'Drifted', Date.parse('2026-11-25T10:01:00Z'), 10)).toBe(3);
  });

  it('at most one entry per distinct value and schedule, within the CRD limit of 50', async () => {
    const b = await budgetsAt(
      'budget 20% for Empty, Drifted\nbudget 5\nbudget 0 for Underutilized during "@daily" for 10m',
      '2026-11-25T00:05:00Z',
      19,
    );
    // Karpenter's docs example at 00:05 UTC: Empty/Drifted 20% of 19 = 4, Underutilized 0 inside @daily 10m.
    expect(karpenterAllows(b, 'Empty', Date.parse('2026-11-25T00:05:30Z'), 19)).toBe(4);
    expect(karpenterAllows(b, 'Underutilized', Date.parse('2026-11-25T00:05:30Z'), 19)).toBe(0);
    expect(b.length).toBeLessThanOrEqual(50);
    expect(new Set(b.map((x) => `${x.nodes}|${x.schedule}`)).size).toBe(b.length);
  });
});
