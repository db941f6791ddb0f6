// SPDX-License-Identifier: Apache-2.0
// From the cluster model to simulation input: a state node as existing capacity, and the
// "currently reschedulable" pod predicate that decides which pods a simulation re-places
// (KARPENTER.md#pod-predicates, KARPENTER.md#scheduling-simulation). Built on the predicates in
// src/core/cluster/state.ts.
import {
  isDisruptable,
  isInitialized,
  isManaged,
  isReschedulable,
  isTerminal,
  isFullyBlockingPdb,
  matchingPdbs,
  isActive,
  podDoNotDisrupt,
  type ClusterIndex,
  type StateNode,
} from '../../core/cluster/state.js';
import type { Pod, Taint } from '../../core/cluster/types.js';
import { nodeAllocatable, parseResourceList } from '../../core/cluster/resources.js';
import type { SimNode } from './simulate.js';

const UNSCHEDULABLE: Taint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

/**
 * A state node as existing capacity. A NodeClaim without a Node yet contributes its labels,
 * taints (startup taints are expected to go away) and status.allocatable. Terminal pods free
 * their resources; unmanaged nodes count as initialized (Karpenter's `StateNode.Initialized`).
 */
export function simNodeFromState(sn: StateNode, opts: { consolidateAfterBlocked?: boolean } = {}): SimNode {
  const node = sn.node;
  const labels = { ...(node ? node.metadata.labels : sn.nodeClaim?.metadata.labels) };
  const taints = [...(node ? (node.spec.taints ?? []) : (sn.nodeClaim?.spec.taints ?? []))];
  if (node?.spec.unschedulable && !taints.some((t) => t.key === UNSCHEDULABLE.key)) taints.push(UNSCHEDULABLE);
  return {
    name: sn.name,
    labels,
    taints,
    allocatable: node ? nodeAllocatable(node) : parseResourceList(sn.nodeClaim?.status?.allocatable),
    pods: sn.pods.filter((p) => !isTerminal(p)),
    initialized: !isManaged(sn) || isInitialized(sn),
    ...(sn.nodeClaim && { nodeClaim: sn.nodeClaim.metadata.name }),
    ...(opts.consolidateAfterBlocked !== undefined && { consolidateAfterBlocked: opts.consolidateAfterBlocked }),
  };
}

/**
 * Karpenter's `IsCurrentlyReschedulable`: reschedulable, disruptable (no active do-not-disrupt),
 * and not covered by a fully blocking PDB (`maxUnavailable: 0`/`"0%"`, `minAvailable: "100%"`;
 * the single matching PDB; an `AlwaysAllow` PDB does not block a pod whose Ready is False).
 */
export function isCurrentlyReschedulable(index: ClusterIndex, pod: Pod, nowMs: number): boolean {
  if (!isReschedulable(pod) || !isDisruptable(pod, nowMs)) return false;
  const pdbs = matchingPdbs(index, pod);
  if (pdbs.length !== 1 || !isFullyBlockingPdb(pdbs[0])) return true;
  const unhealthy = pod.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'False';
  return pdbs[0].spec.unhealthyPodEvictionPolicy === 'AlwaysAllow' && unhealthy;
}

/**
 * The pods isCurrentlyReschedulable keeps at `nowMs`, and the instant before which that stays
 * the answer as time passes (with these PDBs): the earliest end of a do-not-disrupt duration
 * that keeps one of them back now. Infinity when time alone changes nothing.
 */
export function currentlyReschedulable(
  index: ClusterIndex,
  pods: readonly Pod[],
  nowMs: number,
): { pods: Pod[]; until: number } {
  const out: Pod[] = [];
  let until = Infinity;
  for (const p of pods) {
    if (isCurrentlyReschedulable(index, p, nowMs)) out.push(p);
    else if (isReschedulable(p) && isActive(p)) {
      const d = podDoNotDisrupt(p, nowMs);
      if (d.active && d.until !== undefined && d.until < until) until = d.until;
    }
  }
  return { pods: out, until };
}
