// SPDX-License-Identifier: Apache-2.0
// The Node finalizer (KARPENTER.md#node-finalizer "Node finalize"), one pass per reconcile, each step
// idempotent so that a restarted controller resumes from what the cluster holds:
// instance already gone → release; taint and exclude from load balancers; drain in tiers with
// MinDrainTime; terminate the instance and wait until it is gone; release the Node.
// Volumes are not waited for: kpol's cluster model has no VolumeAttachments.
import type { Node, NodeClaim, Pod, Taint } from '../../core/cluster/types.js';
import { conditionOf, setCondition } from './conditions.js';
import { removeFinalizer, requeue, secondsSince, type StepResult, type TerminationContext } from './context.js';
import { planDrain } from './drain.js';
import { failedDraining, terminationGracePeriodExpiring } from './events.js';
import { involved } from '../../core/observe/recorder.js';
import { isInstanceGone, ensureInstanceTerminated } from './instance.js';
import {
  CONDITION_DISRUPTION_REASON,
  CONDITION_DRAINED,
  DRAIN_REQUEUE_MS,
  FINALIZER_TERMINATION,
  INSTANCE_REQUEUE_MS,
  LABEL_EXCLUDE_FROM_LB,
  LABEL_EXCLUDE_FROM_LB_VALUE,
  LABEL_NODEPOOL,
  LABEL_ZONE,
  METRIC,
  TAINT_DISRUPTED,
} from './names.js';
import { formatRfc3339, terminationTimeOf } from './termination-time.js';

const isReady = (node: Node): boolean => node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';

/**
 * Reason for `Evicted` events: the NodeClaim's DisruptionReason, `Forceful Termination` without one, "" without a
 * NodeClaim.
 */
export function evictionReason(nodeClaim: NodeClaim | undefined): string {
  if (!nodeClaim) return '';
  const c = conditionOf(nodeClaim, CONDITION_DISRUPTION_REASON);
  return c?.status === 'True' && c.reason ? c.reason : 'Forceful Termination';
}

/**
 * Finalizes one deleting Node. `nodeClaim` is its single NodeClaim (none or several → undefined;
 * then there is no Drained condition and so no MinDrainTime); `pods` are the pods bound to it.
 */
export async function finalizeNode(
  ctx: TerminationContext,
  node: Node,
  nodeClaim: NodeClaim | undefined,
  pods: readonly Pod[],
  nowMs: number,
): Promise<StepResult> {
  const providerID = node.spec.providerID ?? '';
  if (!isReady(node) && providerID && isInstanceGone(await ctx.cloud.get(providerID))) {
    await releaseNode(ctx, node, nowMs);
    return { done: true };
  }

  const deadline = terminationTimeOf(nodeClaim);
  if (deadline !== undefined)
    ctx.recorder.publish(terminationGracePeriodExpiring(involved(node), formatRfc3339(deadline)));
  const current = await taintAndExclude(ctx, node);

  let claim = nodeClaim;
  const uid = current.metadata.uid ?? current.metadata.name;
  if (
    conditionOf(claim, CONDITION_DRAINED)?.status !== 'True' &&
    !(claim === undefined && ctx.drainedWithoutClaim.has(uid))
  ) {
    if (claim && conditionOf(claim, CONDITION_DRAINED)?.status !== 'Unknown') {
      claim = await setCondition(
        ctx.client,
        claim,
        { type: CONDITION_DRAINED, status: 'Unknown', reason: 'Draining', message: 'Draining' },
        nowMs,
      );
    }
    const plan = planDrain(pods, deadline, nowMs);
    ctx.queue.add(plan.enqueue, { deadlineMs: deadline, reason: evictionReason(claim) }, nowMs);
    if (plan.waiting.length > 0) {
      ctx.recorder.publish(failedDraining(involved(current), { kind: 'waiting', pods: plan.waiting.length }));
      return requeue(DRAIN_REQUEUE_MS);
    }
    if (claim) {
      const draining = secondsSince(conditionOf(claim, CONDITION_DRAINED)?.lastTransitionTime, nowMs) ?? 0;
      if (draining * 1000 < ctx.minDrainTimeMs) return requeue(Math.max(ctx.minDrainTimeMs - draining * 1000, 1));
      claim = await setCondition(
        ctx.client,
        claim,
        { type: CONDITION_DRAINED, status: 'True', reason: CONDITION_DRAINED },
        nowMs,
      );
    } else {
      ctx.drainedWithoutClaim.add(uid);
    }
    ctx.metrics?.inc(METRIC.nodesDrained, { nodepool: current.metadata.labels?.[LABEL_NODEPOOL] ?? '' });
  }

  if (providerID) {
    const t = await ensureInstanceTerminated(ctx.client, ctx.cloud, providerID, claim, nowMs);
    if (!t.gone) return requeue(INSTANCE_REQUEUE_MS);
  }
  await releaseNode(ctx, current, nowMs);
  ctx.drainedWithoutClaim.delete(uid);
  return { done: true };
}

/**
 * Taint `karpenter.sh/disrupted:NoSchedule` (dropping other taints with that key) and label the Node out of load
 * balancers.
 */
async function taintAndExclude(ctx: TerminationContext, node: Node): Promise<Node> {
  const taints = node.spec.taints ?? [];
  const hasTaint = taints.some((t) => t.key === TAINT_DISRUPTED && t.effect === 'NoSchedule' && (t.value ?? '') === '');
  const labelled = node.metadata.labels?.[LABEL_EXCLUDE_FROM_LB] === LABEL_EXCLUDE_FROM_LB_VALUE;
  if (hasTaint && labelled) return node;
  const next: Taint[] = hasTaint
    ? taints
    : [...taints.filter((t) => t.key !== TAINT_DISRUPTED), { key: TAINT_DISRUPTED, effect: 'NoSchedule' }];
  return ctx.client.patch<Node>(
    { kind: 'Node', name: node.metadata.name },
    { metadata: { labels: { [LABEL_EXCLUDE_FROM_LB]: LABEL_EXCLUDE_FROM_LB_VALUE } }, spec: { taints: next } },
    { resourceVersion: node.metadata.resourceVersion },
  );
}

async function releaseNode(ctx: TerminationContext, node: Node, nowMs: number): Promise<void> {
  await removeFinalizer(ctx.client, node, FINALIZER_TERMINATION);
  const nodepool = node.metadata.labels?.[LABEL_NODEPOOL] ?? '';
  ctx.metrics?.inc(METRIC.nodesTerminated, { nodepool, zone: node.metadata.labels?.[LABEL_ZONE] ?? '' });
  const terminating = secondsSince(node.metadata.deletionTimestamp, nowMs);
  if (terminating !== undefined) ctx.metrics?.observe?.(METRIC.nodeTerminationDuration, { nodepool }, terminating);
  const lifetime = secondsSince(node.metadata.creationTimestamp, nowMs);
  if (lifetime !== undefined) ctx.metrics?.observe?.(METRIC.nodeLifetimeDuration, { nodepool }, lifetime);
}
