// SPDX-License-Identifier: Apache-2.0
// Govern mode with `per reason` buckets: Karpenter subtracts one shared disrupting count from every
// reason (KARPENTER.md#budget-counting step 5), so where a bucket binds kpol writes `allowed +
// disrupting`, and Karpenter's own arithmetic then yields exactly kpol's allowance for each reason.
import { describe, expect, it } from 'vitest';
import { ceilMinute, governedBudgets } from '../../src/control/govern/karpenter-budgets.js';
import type { KarpenterBudget } from '../../src/core/cluster/types.js';
import { allowanceFor } from '../../rules/budgets.js';
import { bucketCount, type DisruptingByReason } from '../../src/core/eval/disruption-reasons.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { KARPENTER_REASONS } from '../../rules/model.js';

const NOW = Date.parse('2026-11-25T12:00:30Z');

function policyOf(body: string) {
  const loaded = loadPolicies([{ fileName: 'p.kpol', text: `policy p for nodepool default {\n${body}\n}\n` }]);
  expect(loaded.files[0]!.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return loaded.policies[0]!;
}

/** Karpenter's number for a reason from undated budgets: max(min(values) − disrupting, 0). */
function karpenterAllowed(budgets: KarpenterBudget[], reason: string, nodes: number, disrupting: number) {
  let min = 2147483647;
  for (const b of budgets) {
    if (b.schedule || (b.reasons && !b.reasons.includes(reason))) continue;
    const t = b.nodes ?? '10%';
    min = Math.min(min, t.endsWith('%') ? Math.ceil((Number(t.slice(0, -1)) * nodes) / 100) : Number(t));
  }
  return min >= 2147483647 ? null : Math.max(min - disrupting, 0);
}

describe('govern mode writes buckets so that Karpenter computes them', () => {
  const body = 'budget 2 for Drifted per reason\nbudget 20% for Underutilized per reason\nbudget 6';
  it.each<[DisruptingByReason]>([
    [{}],
    [{ Underutilized: 2 }],
    [{ Underutilized: 3, Empty: 1 }],
    [{ Drifted: 1, Underutilized: 1 }],
    [{ Drifted: 3 }],
    [{ unknown: 1, Underutilized: 1 }],
    [{ Empty: 5, Drifted: 1 }],
  ])('disrupting %j', async (byReason) => {
    const policy = policyOf(body);
    const ev = new Evaluator();
    const nodes = 10;
    const disrupting = Object.values(byReason).reduce((a, b) => a + (b ?? 0), 0);
    const written = await governedBudgets((t) => ev.poolEvents(policy, t), NOW, nodes, ceilMinute(NOW + 2 * 60_000), {
      disrupting,
      byReason,
    });
    const events = await ev.poolEvents(policy, NOW);
    for (const reason of KARPENTER_REASONS) {
      const kpol = allowanceFor(events, reason, {
        nodes,
        disrupting,
        disruptingFor: bucketCount(byReason, reason),
      }).allowed;
      expect(karpenterAllowed(written, reason, nodes, disrupting), reason).toBe(kpol);
    }
  });

  it('two consolidations in flight: drift keeps its bucket of 2 (Karpenter alone would allow 0)', async () => {
    const policy = policyOf('budget 2 for Drifted per reason\nbudget 10');
    const ev = new Evaluator();
    const byReason = { Underutilized: 2 };
    const written = await governedBudgets((t) => ev.poolEvents(policy, t), NOW, 10, ceilMinute(NOW + 60_000), {
      disrupting: 2,
      byReason,
    });
    expect(written.find((b) => b.reasons?.includes('Drifted') && !b.schedule)?.nodes).toBe('4');
    expect(karpenterAllowed(written, 'Drifted', 10, 2)).toBe(2);
    // written as the static NodePool would say it, Karpenter shares the count
    expect(karpenterAllowed([{ nodes: '2', reasons: ['Drifted'] }], 'Drifted', 10, 2)).toBe(0);
  });

  it('without counts (no buckets) the written budgets are unchanged', async () => {
    const policy = policyOf('budget 2 for Drifted\nbudget 10');
    const ev = new Evaluator();
    const written = await governedBudgets((t) => ev.poolEvents(policy, t), NOW, 10, ceilMinute(NOW + 60_000));
    expect(written.filter((b) => !b.schedule || b.reasons)).toEqual([
      { nodes: '10', reasons: ['Empty', 'Underutilized'] },
      { nodes: '2', reasons: ['Drifted'] },
    ]);
  });
});
