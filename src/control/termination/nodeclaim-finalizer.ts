// SPDX-License-Identifier: Apache-2.0
// The NodeClaim finalizer (KARPENTER.md#termination): once none of its Nodes is left, make sure the
// instance is gone (InstanceTerminating, cloud delete, wait), then release the NodeClaim.
// The termination-time annotation is written before this step (termination-time.ts), and the
// Nodes are deleted by the controller's cascade step.
import type { Node, NodeClaim } from '../../core/cluster/types.js';
import { conditionOf } from './conditions.js';
import { removeFinalizer, requeue, secondsSince, type StepResult, type TerminationContext } from './context.js';
import { ensureInstanceTerminated } from './instance.js';
import {
  CONDITION_INSTANCE_TERMINATING,
  FINALIZER_TERMINATION,
  INSTANCE_REQUEUE_MS,
  LABEL_CAPACITY_TYPE,
  LABEL_NODEPOOL,
  LABEL_ZONE,
  METRIC,
} from './names.js';

/** `nodes` are the Nodes registered for this NodeClaim (same providerID) that still exist. */
export async function finalizeNodeClaim(
  ctx: TerminationContext,
  nodeClaim: NodeClaim,
  nodes: readonly Node[],
  nowMs: number,
): Promise<StepResult> {
  if (nodes.length > 0) return requeue(INSTANCE_REQUEUE_MS); // the Node finalizer drains first
  let claim = nodeClaim;
  const labels = claim.metadata.labels ?? {};
  const nodepool = labels[LABEL_NODEPOOL] ?? '';
  const providerID = claim.status?.providerID;
  if (providerID) {
    const t = await ensureInstanceTerminated(ctx.client, ctx.cloud, providerID, claim, nowMs);
    if (!t.gone) return requeue(INSTANCE_REQUEUE_MS);
    claim = t.nodeClaim ?? claim;
    const since = secondsSince(conditionOf(claim, CONDITION_INSTANCE_TERMINATING)?.lastTransitionTime, nowMs);
    if (since !== undefined) ctx.metrics?.observe?.(METRIC.nodeClaimInstanceTerminationDuration, { nodepool }, since);
  }
  await removeFinalizer(ctx.client, claim, FINALIZER_TERMINATION);
  ctx.metrics?.inc(METRIC.nodeClaimsTerminated, {
    nodepool,
    capacity_type: labels[LABEL_CAPACITY_TYPE] ?? '',
    zone: labels[LABEL_ZONE] ?? '',
  });
  const terminating = secondsSince(claim.metadata.deletionTimestamp, nowMs);
  if (terminating !== undefined) ctx.metrics?.observe?.(METRIC.nodeClaimTerminationDuration, { nodepool }, terminating);
  return { done: true };
}
