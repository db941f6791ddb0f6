// SPDX-License-Identifier: Apache-2.0
// Karpenter's disruption and termination metrics with their exact names, types and label
// names (KARPENTER.md#events-and-metrics), plus kpol's own. Dashboards built for Karpenter read these unchanged.
import { MetricsRegistry, type MetricFamily } from './metrics.js';

/** Karpenter's `DurationBuckets()`: controller-runtime's bounds plus a tail for singleton loops. */
export const DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2,
  2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60, 120, 150, 300, 450, 600,
] as const;

export const CONSOLIDATION_SCORE_BUCKETS = [0.1, 0.25, 0.33, 0.5, 1, 2, 5, 10] as const;

const M = 60;
const H = 3600;
const D = 86_400;
/** Node lifetimes: 15 minutes to 30 days, as Karpenter's termination controller declares them. */
export const LIFETIME_BUCKETS = [
  15 * M,
  30 * M,
  45 * M,
  H,
  2 * H,
  4 * H,
  6 * H,
  8 * H,
  10 * H,
  12 * H,
  16 * H,
  20 * H,
  D,
  2 * D,
  3 * D,
  5 * D,
  10 * D,
  15 * D,
  20 * D,
  25 * D,
  30 * D,
] as const;
/** Prometheus `ExponentialBuckets(1, 2, n)`: 1, 2, 4, … 2ⁿ⁻¹ seconds. */
export const exponentialBuckets = (n: number): number[] => Array.from({ length: n }, (_, i) => 2 ** i);

// `consolidation_policy` and `termination_mode` exist on `main` only (KARPENTER.md#events-and-metrics); kpol
// mirrors `main` so one dashboard covers both metrics.
const DISRUPTED_LABELS = ['reason', 'nodepool', 'capacity_type', 'consolidation_policy', 'termination_mode'];

const counter = (name: string, help: string, labelNames: string[]): MetricFamily => ({
  name,
  help,
  type: 'counter',
  labelNames,
});
const gauge = (name: string, help: string, labelNames: string[]): MetricFamily => ({
  name,
  help,
  type: 'gauge',
  labelNames,
});
const histogram = (
  name: string,
  help: string,
  labelNames: string[],
  buckets: readonly number[] = DURATION_BUCKETS,
): MetricFamily => ({
  name,
  help,
  type: 'histogram',
  labelNames,
  buckets,
});

export const KARPENTER_METRIC_FAMILIES: readonly MetricFamily[] = [
  histogram(
    'karpenter_voluntary_disruption_decision_evaluation_duration_seconds',
    'Time spent evaluating a disruption method for a decision, in seconds.',
    ['reason', 'consolidation_type'],
  ),
  counter(
    'karpenter_voluntary_disruption_decisions_total',
    'Disruption decisions made, by decision, reason and consolidation type.',
    ['decision', 'reason', 'consolidation_type'],
  ),
  counter('karpenter_voluntary_disruption_decisions_by_nodepool_total', 'Disruption decisions made per NodePool.', [
    'nodepool',
    'decision',
    'reason',
    'consolidation_type',
  ]),
  gauge('karpenter_voluntary_disruption_eligible_nodes', 'Nodes eligible for disruption, by reason.', ['reason']),
  counter(
    'karpenter_voluntary_disruption_consolidation_timeouts_total',
    'Consolidation evaluations that hit their time limit.',
    ['consolidation_type'],
  ),
  counter(
    'karpenter_voluntary_disruption_failed_validations_total',
    'Disruption commands dropped because validation before execution failed.',
    ['consolidation_type'],
  ),
  counter(
    'karpenter_voluntary_disruption_queue_failures_total',
    'Disruption commands that failed in the orchestration queue.',
    ['decision', 'reason', 'consolidation_type'],
  ),
  gauge(
    'karpenter_nodepools_allowed_disruptions',
    'Nodes that may be disrupted now per NodePool and reason, after budgets.',
    ['nodepool', 'reason'],
  ),
  gauge(
    'karpenter_nodepools_nodes_consuming_budgets',
    'Nodes per NodePool and reason that count against disruption budgets.',
    ['nodepool', 'reason'],
  ),
  counter('karpenter_nodeclaims_disrupted_total', 'NodeClaims disrupted, by reason and NodePool.', DISRUPTED_LABELS),
  counter(
    'karpenter_pods_disruption_initiated_total',
    'Pods whose node disruption was initiated, by reason and NodePool.',
    DISRUPTED_LABELS,
  ),
  histogram(
    'karpenter_consolidation_score',
    'Consolidation score (savings over disruption cost) of evaluated moves.',
    ['decision', 'nodepool', 'policy'],
    CONSOLIDATION_SCORE_BUCKETS,
  ),
  counter('karpenter_consolidation_moves_total', 'Consolidation moves approved or rejected.', [
    'decision',
    'nodepool',
    'policy',
  ]),
  counter('karpenter_pods_eviction_requests_total', 'Eviction requests sent, by response code.', ['code']),
  counter('karpenter_pods_drained_total', 'Pods drained from nodes, by reason.', ['reason']),
  counter('karpenter_nodes_drained_total', 'Nodes drained, by NodePool.', ['nodepool']),
  counter('karpenter_nodes_terminated_total', 'Nodes terminated, by NodePool and zone.', ['nodepool', 'zone']),
  {
    name: 'karpenter_nodes_termination_duration_seconds',
    help: 'Time from a node deletion request to its finalizer being removed, in seconds.',
    type: 'summary',
    labelNames: ['nodepool'],
  },
  histogram(
    'karpenter_nodes_lifetime_duration_seconds',
    'Node lifetime from creation to termination, in seconds.',
    ['nodepool'],
    LIFETIME_BUCKETS,
  ),
  counter('karpenter_nodeclaims_terminated_total', 'NodeClaims terminated, by NodePool, capacity type and zone.', [
    'nodepool',
    'capacity_type',
    'zone',
  ]),
  histogram(
    'karpenter_nodeclaims_termination_duration_seconds',
    'Duration of NodeClaim termination, in seconds.',
    ['nodepool'],
    exponentialBuckets(12),
  ),
  histogram(
    'karpenter_nodeclaims_instance_termination_duration_seconds',
    'Duration of cloud-provider instance termination, in seconds.',
    ['nodepool'],
    exponentialBuckets(11),
  ),
];

export const KPOL_METRIC_FAMILIES: readonly MetricFamily[] = [
  histogram('kpol_reconcile_duration_seconds', 'Duration of one disruption reconcile, in seconds.', []),
  counter('kpol_policy_load_errors_total', 'Policy files that failed to load or check.', []),
  counter('kpol_tick_failures_total', 'Controller ticks that failed: no decision was made on them.', []),
];

/** A registry with every family declared and Karpenter's pre-initialised series in place. */
export function createKarpenterMetrics(): MetricsRegistry {
  const registry = new MetricsRegistry();
  for (const f of [...KARPENTER_METRIC_FAMILIES, ...KPOL_METRIC_FAMILIES]) registry.declare(f);
  // Karpenter registers these two series at start-up so a rate() over them is never empty.
  for (const t of ['multi', 'single'])
    registry.inc('karpenter_voluntary_disruption_consolidation_timeouts_total', { consolidation_type: t }, 0);
  return registry;
}
