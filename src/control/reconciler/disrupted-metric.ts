// SPDX-License-Identifier: Apache-2.0
// Labels of karpenter_nodeclaims_disrupted_total / karpenter_pods_disruption_initiated_total
// (KARPENTER.md#events-and-metrics, Karpenter main): reason and pool, the pool's consolidation policy in snake
// case for consolidation reasons only, and the termination mode the NodeClaim's TGP implies.
import type { ConsolidationPolicy } from '../../../rules/model.js';

const SNAKE: Record<ConsolidationPolicy, string> = {
  WhenEmpty: 'when_empty',
  WhenEmptyOrUnderutilized: 'when_empty_or_underutilized',
  Balanced: 'balanced',
};

export function disruptedLabels(o: {
  reason: string;
  nodePool: string;
  capacityType: string;
  policy?: ConsolidationPolicy;
  tgpSeconds?: number;
}): Record<string, string> {
  const consolidation = o.reason === 'Empty' || o.reason === 'Underutilized';
  const mode = o.tgpSeconds === undefined ? 'graceful' : o.tgpSeconds <= 0 ? 'forceful' : 'eventual';
  return {
    reason: o.reason.toLowerCase(),
    nodepool: o.nodePool,
    capacity_type: o.capacityType,
    consolidation_policy: consolidation && o.policy ? SNAKE[o.policy] : '',
    termination_mode: mode,
  };
}
