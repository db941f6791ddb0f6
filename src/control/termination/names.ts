// SPDX-License-Identifier: Apache-2.0
// Names the termination flow reads and writes, spelled as Karpenter spells them (KARPENTER.md#termination,
// KARPENTER.md#events-and-metrics).
export {
  FINALIZER_TERMINATION,
  TAINT_DISRUPTED,
  LABEL_NODEPOOL,
  LABEL_ZONE,
  LABEL_CAPACITY_TYPE,
} from '../../core/cluster/types.js';

export const ANNOTATION_TERMINATION_TIMESTAMP = 'karpenter.sh/nodeclaim-termination-timestamp';
export const LABEL_EXCLUDE_FROM_LB = 'node.kubernetes.io/exclude-from-external-load-balancers';
export const LABEL_EXCLUDE_FROM_LB_VALUE = 'karpenter';

export const CONDITION_DRAINED = 'Drained';
export const CONDITION_INSTANCE_TERMINATING = 'InstanceTerminating';
export const CONDITION_DISRUPTION_REASON = 'DisruptionReason';

/** Drained must have been Unknown this long before it may become True. */
export const MIN_DRAIN_TIME_MS = 5_000;
/** Requeue hints: while draining, and while waiting for the instance to disappear. */
export const DRAIN_REQUEUE_MS = 1_000;
export const INSTANCE_REQUEUE_MS = 5_000;

/** Priority classes whose pods drain last (by name, not by value). */
export const CRITICAL_PRIORITY_CLASSES: ReadonlySet<string> = new Set([
  'system-cluster-critical',
  'system-node-critical',
]);

/** Counter and duration names (KARPENTER.md#events-and-metrics). */
export const METRIC = {
  evictionRequests: 'karpenter_pods_eviction_requests_total',
  podsDrained: 'karpenter_pods_drained_total',
  nodesDrained: 'karpenter_nodes_drained_total',
  nodesTerminated: 'karpenter_nodes_terminated_total',
  nodeTerminationDuration: 'karpenter_nodes_termination_duration_seconds',
  nodeLifetimeDuration: 'karpenter_nodes_lifetime_duration_seconds',
  nodeClaimsTerminated: 'karpenter_nodeclaims_terminated_total',
  nodeClaimTerminationDuration: 'karpenter_nodeclaims_termination_duration_seconds',
  nodeClaimInstanceTerminationDuration: 'karpenter_nodeclaims_instance_termination_duration_seconds',
} as const;

/**
 * Where termination reports its counters and durations; `Metrics` from src/core/observe/metrics.ts
 * satisfies it. `observe` is optional so a bare counter sink is enough.
 */
export interface TerminationMetrics {
  inc(name: string, labels?: Record<string, string>, value?: number): void;
  observe?(name: string, labels: Record<string, string>, value: number): void;
}
