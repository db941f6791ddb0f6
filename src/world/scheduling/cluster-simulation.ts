// SPDX-License-Identifier: Apache-2.0
// One scheduling simulation over the cluster (KARPENTER.md#scheduling-simulation), as the
// provisioner and the disruption methods both run it: existing capacity is every node that is not
// deleting, not marked and not moving; the pods to place are the pending pods, the moving nodes'
// currently reschedulable pods and those of deleting nodes.
import type { PolicySpec } from '../../../rules/model.js';
import type { InstanceType } from '../cloud/provider.js';
import {
  isActive,
  isDaemonSetPod,
  isDeleting,
  nodePoolOf,
  type ClusterIndex,
  type StateNode,
} from '../../core/cluster/state.js';
import type { NodePool, Pod } from '../../core/cluster/types.js';
import { isCurrentlyReschedulable, simNodeFromState } from './from-state.js';
import type { PoolTemplate } from './new-claims.js';
import { simulateScheduling, type SchedulingResult } from './simulate.js';

export interface SimulationEnv {
  now: number;
  instanceTypes: readonly InstanceType[];
  marked: ReadonlySet<string>;
  /** The policy governing a NodePool (its consolidateAfter protects destinations). */
  policyFor: (nodePool: string) => PolicySpec | undefined;
}

export function poolTemplate(np: NodePool): PoolTemplate {
  const t = np.spec.template ?? {};
  return {
    name: np.metadata.name,
    requirements: t.spec?.requirements ?? [],
    taints: t.spec?.taints ?? [],
    labels: t.metadata?.labels ?? {},
    ...(np.spec.weight !== undefined && { weight: np.spec.weight }),
  };
}

/**
 * One pod per DaemonSet, for the per-node overhead of new NodeClaims. Kept per pod list (an index's lists are never
 * changed).
 */
export function daemonSetPods(pods: readonly Pod[]): Pod[] {
  let found = daemonSetPodsOf.get(pods);
  if (found === undefined) daemonSetPodsOf.set(pods, (found = findDaemonSetPods(pods)));
  return found;
}

const daemonSetPodsOf = new WeakMap<readonly Pod[], Pod[]>();

/** An owner reference of kind DaemonSet: a cheap first look, since this runs over every pod of every new index. */
function hasDaemonSetOwner(p: Pod): boolean {
  const refs = p.metadata.ownerReferences;
  if (refs === undefined) return false;
  for (let i = 0; i < refs.length; i++) if (refs[i].kind === 'DaemonSet') return true;
  return false;
}

function findDaemonSetPods(pods: readonly Pod[]): Pod[] {
  const seen = new Map<string, Pod>();
  for (const p of pods) {
    if (!hasDaemonSetOwner(p) || !isDaemonSetPod(p)) continue;
    const owner = p.metadata.ownerReferences?.find((o) => o.kind === 'DaemonSet');
    const key = `${p.metadata.namespace}/${owner?.name}`;
    if (!seen.has(key)) seen.set(key, p);
  }
  return [...seen.values()];
}

export const isPending = (p: Pod): boolean => !p.spec.nodeName && isActive(p);

/**
 * consolidateAfter also protects destination nodes (v1.14): a node with a recent pod event refuses candidates' pods.
 */
export function destinationBlocked(sn: StateNode, env: SimulationEnv): boolean {
  return destinationBlockState(sn, env.now, (pool) => env.policyFor(pool)?.consolidateAfterSeconds).blocked;
}

/**
 * destinationBlocked, and the instant from which it may be false (Infinity: it may never be;
 * an unblocked node stays so as time passes). `afterOf`: the pool's consolidateAfterSeconds.
 */
export function destinationBlockState(
  sn: StateNode,
  now: number,
  afterOf: (pool: string) => number | null | undefined,
): { blocked: boolean; until: number } {
  const after = afterOf(nodePoolOf(sn) ?? '');
  if (after === null || after === undefined || after === 0) return { blocked: false, until: Infinity };
  const init = sn.nodeClaim?.status?.conditions?.find((c) => c.type === 'Initialized');
  const ref = Date.parse(sn.nodeClaim?.status?.lastPodEventTime ?? init?.lastTransitionTime ?? '');
  return { blocked: !Number.isNaN(ref) && now - ref < after * 1000, until: ref + after * 1000 };
}

export const deletingOrMarked = (sn: StateNode, env: SimulationEnv) =>
  isDeleting(sn) ||
  sn.node?.metadata.deletionTimestamp !== undefined ||
  (sn.providerID !== undefined && env.marked.has(sn.providerID));

export function runSimulation(
  index: ClusterIndex,
  moving: readonly StateNode[],
  consolidation: boolean,
  env: SimulationEnv,
): { result: SchedulingResult; pending: Pod[] } {
  const movingNames = new Set(moving.map((s) => s.name));
  const nodes = index.stateNodes
    .filter((sn) => !movingNames.has(sn.name) && !deletingOrMarked(sn, env))
    .map((sn) => simNodeFromState(sn, consolidation ? { consolidateAfterBlocked: destinationBlocked(sn, env) } : {}));
  const pending = index.snapshot.pods.filter(isPending);
  const exempt = new Set<Pod>(pending);
  const pods = [...pending];
  for (const sn of moving) for (const p of sn.pods) if (isCurrentlyReschedulable(index, p, env.now)) pods.push(p);
  for (const sn of index.stateNodes) {
    if (movingNames.has(sn.name) || !deletingOrMarked(sn, env)) continue;
    for (const p of sn.pods)
      if (isCurrentlyReschedulable(index, p, env.now)) {
        pods.push(p);
        exempt.add(p);
      }
  }
  const result = simulateScheduling({
    pods,
    nodes,
    nodePools: index.snapshot.nodePools.map(poolTemplate),
    instanceTypes: env.instanceTypes,
    consolidation,
    exemptFromDestinationRule: exempt,
    daemonSetPods: daemonSetPods(index.snapshot.pods),
  });
  return { result, pending };
}
