// SPDX-License-Identifier: Apache-2.0
// Karpenter's `needsForceDelete` (KARPENTER.md#force-delete, "TGP formula"): when a pod must be deleted
// without waiting for an eviction so that it is gone by the node's termination time T.
import { isTerminating } from '../../core/cluster/state.js';
import { DEFAULT_TERMINATION_GRACE_SECONDS, type Pod } from '../../core/cluster/types.js';

/**
 * The pod's terminationGracePeriodSeconds. An API server always writes one (30 s by default),
 * so Karpenter, which reads absent as "never force-delete", never meets the case; kpol also
 * reads pods that never went through one (a hand-written snapshot handed to another
 * ClusterClient), and there absent means what the API would have made of it: 30 s. Read as
 * "never", a do-not-disrupt pod without the field would keep its node draining for good.
 */
export const podGraceSeconds = (pod: Pod): number =>
  pod.spec.terminationGracePeriodSeconds ?? DEFAULT_TERMINATION_GRACE_SECONDS;

/**
 * No T → never. A terminating pod → iff its deletionTimestamp (when the kubelet will kill it)
 * is after T. Otherwise, with g = podGraceSeconds (absent → 30 s), iff now > T − g, strictly.
 */
export function needsForceDelete(pod: Pod, deadlineMs: number | undefined, nowMs: number): boolean {
  if (deadlineMs === undefined) return false;
  if (isTerminating(pod)) return Date.parse(pod.metadata.deletionTimestamp!) > deadlineMs;
  return nowMs > deadlineMs - podGraceSeconds(pod) * 1000;
}

/** The grace period of a force delete: whole seconds left until T, truncated, never below 1. */
export const forceDeleteGraceSeconds = (deadlineMs: number, nowMs: number): number =>
  Math.max(Math.trunc((deadlineMs - nowMs) / 1000), 1);

/**
 * The first instant (epoch ms) at which `needsForceDelete` turns true for this pod while it
 * stays as it is now; undefined when it never will. Lets the eviction queue wake up on time
 * instead of waiting out a backoff.
 */
export function forceDeleteAt(pod: Pod, deadlineMs: number | undefined): number | undefined {
  if (deadlineMs === undefined || isTerminating(pod)) return undefined;
  return deadlineMs - podGraceSeconds(pod) * 1000 + 1;
}
