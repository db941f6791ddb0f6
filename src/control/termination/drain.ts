// SPDX-License-Identifier: Apache-2.0
// Which pods of a draining node go to the eviction queue now (KARPENTER.md#drain-tiers step 4): every pod
// the node still waits for, force-delete-eligible ones at once whatever their tier, the rest
// only from the first non-empty tier, so critical pods and daemons outlive the workloads.
import { isDaemonSetPod, isWaitingEviction } from '../../core/cluster/state.js';
import type { Pod } from '../../core/cluster/types.js';
import { needsForceDelete } from './force-delete.js';
import { CRITICAL_PRIORITY_CLASSES } from './names.js';

/** 1 non-critical non-daemonset, 2 non-critical daemonset, 3 critical non-daemonset, 4 critical daemonset. */
export type DrainTier = 1 | 2 | 3 | 4;

export function drainTier(pod: Pod): DrainTier {
  const critical = CRITICAL_PRIORITY_CLASSES.has(pod.spec.priorityClassName ?? '');
  const daemon = isDaemonSetPod(pod);
  return ((critical ? 3 : 1) + (daemon ? 1 : 0)) as DrainTier;
}

export interface DrainPlan {
  /**
   * Pods the node waits for: not terminal, not tolerating the disrupted taint, not mirror, not
   * stuck terminating (> 1 min past deletionTimestamp). Do-not-disrupt pods are included.
   */
  waiting: Pod[];
  /** Pods to add to the eviction queue now. */
  enqueue: Pod[];
  /** The tier being drained gracefully; undefined when no graceful pod waits. */
  tier?: DrainTier;
}

/** `pods` are the pods bound to the node; `deadlineMs` is the node's termination time T, if any. */
export function planDrain(pods: readonly Pod[], deadlineMs: number | undefined, nowMs: number): DrainPlan {
  const waiting = pods.filter((p) => isWaitingEviction(p, nowMs));
  const forced: Pod[] = [];
  const tiers: Pod[][] = [[], [], [], []];
  for (const pod of waiting) {
    if (needsForceDelete(pod, deadlineMs, nowMs)) forced.push(pod);
    else tiers[drainTier(pod) - 1].push(pod);
  }
  const first = tiers.findIndex((t) => t.length > 0);
  if (first < 0) return { waiting, enqueue: forced };
  return { waiting, enqueue: [...forced, ...tiers[first]], tier: (first + 1) as DrainTier };
}
