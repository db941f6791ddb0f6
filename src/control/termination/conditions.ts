// SPDX-License-Identifier: Apache-2.0
// NodeClaim status conditions the termination flow owns (Drained, InstanceTerminating), set
// the way Karpenter's condition sets do: lastTransitionTime moves only when the status changes,
// and it is written as RFC3339 with whole seconds, as the API server stores it.
import type { ClusterClient } from '../../core/cluster/client.js';
import type { Condition, NodeClaim } from '../../core/cluster/types.js';
import { formatRfc3339 } from './termination-time.js';

export const conditionOf = (nodeClaim: NodeClaim | undefined, type: string): Condition | undefined =>
  nodeClaim?.status?.conditions?.find((c) => c.type === type);

export interface ConditionChange {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message?: string;
}

/** The conditions with `change` applied, or undefined when nothing would change. */
export function applyCondition(
  conditions: readonly Condition[] | undefined,
  change: ConditionChange,
  nowMs: number,
): Condition[] | undefined {
  const list = conditions ?? [];
  const old = list.find((c) => c.type === change.type);
  const message = change.message ?? '';
  if (old && old.status === change.status && old.reason === change.reason && (old.message ?? '') === message)
    return undefined;
  const next: Condition = {
    type: change.type,
    status: change.status,
    reason: change.reason,
    message,
    lastTransitionTime:
      old && old.status === change.status && old.lastTransitionTime ? old.lastTransitionTime : formatRfc3339(nowMs),
  };
  return old ? list.map((c) => (c === old ? next : c)) : [...list, next];
}

/**
 * Writes one condition to the NodeClaim's status (guarded by its resourceVersion, since a merge
 * patch replaces the whole list) and returns the stored NodeClaim; no write when nothing changes.
 */
export async function setCondition(
  client: ClusterClient,
  nodeClaim: NodeClaim,
  change: ConditionChange,
  nowMs: number,
): Promise<NodeClaim> {
  const conditions = applyCondition(nodeClaim.status?.conditions, change, nowMs);
  if (!conditions) return nodeClaim;
  return client.patch<NodeClaim>(
    { kind: 'NodeClaim', name: nodeClaim.metadata.name },
    { status: { conditions } },
    { resourceVersion: nodeClaim.metadata.resourceVersion },
  );
}
