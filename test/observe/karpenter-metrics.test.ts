// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { createKarpenterMetrics } from '../../src/core/observe/karpenter-metrics.js';
import { parseExposition, sample } from './parse-prometheus.js';

// KARPENTER.md#events-and-metrics, copied by hand: name, type, labels.
const TABLE: [string, string, string[]][] = [
  [
    'karpenter_voluntary_disruption_decision_evaluation_duration_seconds',
    'histogram',
    ['reason', 'consolidation_type'],
  ],
  ['karpenter_voluntary_disruption_decisions_total', 'counter', ['decision', 'reason', 'consolidation_type']],
  [
    'karpenter_voluntary_disruption_decisions_by_nodepool_total',
    'counter',
    ['nodepool', 'decision', 'reason', 'consolidation_type'],
  ],
  ['karpenter_voluntary_disruption_eligible_nodes', 'gauge', ['reason']],
  ['karpenter_voluntary_disruption_consolidation_timeouts_total', 'counter', ['consolidation_type']],
  ['karpenter_voluntary_disruption_failed_validations_total', 'counter', ['consolidation_type']],
  ['karpenter_voluntary_disruption_queue_failures_total', 'counter', ['decision', 'reason', 'consolidation_type']],
  ['karpenter_nodepools_allowed_disruptions', 'gauge', ['nodepool', 'reason']],
  ['karpenter_nodepools_nodes_consuming_budgets', 'gauge', ['nodepool', 'reason']],
  [
    'karpenter_nodeclaims_disrupted_total',
    'counter',
    ['reason', 'nodepool', 'capacity_type', 'consolidation_policy', 'termination_mode'],
  ],
  [
    'karpenter_pods_disruption_initiated_total',
    'counter',
    ['reason', 'nodepool', 'capacity_type', 'consolidation_policy', 'termination_mode'],
  ],
  ['karpenter_consolidation_score', 'histogram', ['decision', 'nodepool', 'policy']],
  ['karpenter_consolidation_moves_total', 'counter', ['decision', 'nodepool', 'policy']],
  ['karpenter_pods_eviction_requests_total', 'counter', ['code']],
  ['karpenter_pods_drained_total', 'counter', ['reason']],
  ['karpenter_nodes_drained_total', 'counter', ['nodepool']],
  ['karpenter_nodes_terminated_total', 'counter', ['nodepool', 'zone']],
  ['karpenter_nodes_termination_duration_seconds', 'summary', ['nodepool']],
  ['karpenter_nodes_lifetime_duration_seconds', 'histogram', ['nodepool']],
  ['karpenter_nodeclaims_terminated_total', 'counter', ['nodepool', 'capacity_type', 'zone']],
  ['karpenter_nodeclaims_termination_duration_seconds', 'histogram', ['nodepool']],
  ['karpenter_nodeclaims_instance_termination_duration_seconds', 'histogram', ['nodepool']],
  ['kpol_reconcile_duration_seconds', 'histogram', []],
  ['kpol_policy_load_errors_total', 'counter', []],
  ['kpol_tick_failures_total', 'counter', []],
];

describe('Karpenter metrics', () => {
  it.each(TABLE)('declares %s as a %s with labels %j', (name, type, labels) => {
    const f = createKarpenterMetrics().family(name);
    expect(f?.type).toBe(type);
    expect([...(f?.labelNames ?? [])].sort()).toEqual([...labels].sort());
  });

  it('declares nothing beyond the table', () => {
    expect(createKarpenterMetrics().names().sort()).toEqual(TABLE.map((t) => t[0]).sort());
  });

  it('pre-initialises the consolidation timeout series to 0', () => {
    const p = parseExposition(createKarpenterMetrics().render());
    const series = p.samples.filter((s) => s.name === 'karpenter_voluntary_disruption_consolidation_timeouts_total');
    expect(series).toEqual([
      {
        name: 'karpenter_voluntary_disruption_consolidation_timeouts_total',
        labels: { consolidation_type: 'multi' },
        value: 0,
      },
      {
        name: 'karpenter_voluntary_disruption_consolidation_timeouts_total',
        labels: { consolidation_type: 'single' },
        value: 0,
      },
    ]);
  });

  it('uses the consolidation score buckets of KARPENTER.md#events-and-metrics', () => {
    const m = createKarpenterMetrics();
    expect(m.family('karpenter_consolidation_score')?.buckets).toEqual([0.1, 0.25, 0.33, 0.5, 1, 2, 5, 10]);
    m.observe('karpenter_consolidation_score', { decision: 'approved', nodepool: 'default', policy: 'Balanced' }, 0.3);
    const p = parseExposition(m.render());
    const labels = { decision: 'approved', nodepool: 'default', policy: 'Balanced' };
    expect(sample(p, 'karpenter_consolidation_score_bucket', { ...labels, le: '0.25' })).toBe(0);
    expect(sample(p, 'karpenter_consolidation_score_bucket', { ...labels, le: '0.33' })).toBe(1);
  });

  it.each([
    ['karpenter_nodes_lifetime_duration_seconds', 15 * 60, 30 * 86_400, 21],
    ['karpenter_nodeclaims_termination_duration_seconds', 1, 2048, 12],
    ['karpenter_nodeclaims_instance_termination_duration_seconds', 1, 1024, 11],
    ['karpenter_voluntary_disruption_decision_evaluation_duration_seconds', 0.005, 600, 45],
  ])('%s has buckets %s … %s (%i bounds)', (name, first, last, n) => {
    const b = createKarpenterMetrics().family(name)?.buckets ?? [];
    expect([b[0], b.at(-1), b.length]).toEqual([first, last, n]);
  });

  it('renders capitalised reasons for NodePool gauges as given', () => {
    const m = createKarpenterMetrics();
    m.set('karpenter_nodepools_allowed_disruptions', { nodepool: 'default', reason: 'Drifted' }, 2);
    expect(m.render()).toContain('karpenter_nodepools_allowed_disruptions{nodepool="default",reason="Drifted"} 2\n');
  });
});
