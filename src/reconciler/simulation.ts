// SPDX-License-Identifier: Apache-2.0
// SimulateScheduling as the disruption methods use it (KARPENTER.md#scheduling-simulation): existing capacity is
// every node that is not deleting, not marked and not a candidate; the pods to place are the
// pending pods, the candidates' currently reschedulable pods and those of deleting nodes.
import type { PolicySpec } from '../../rules/model.js';
import { cheapestOffering } from '../cloud/catalog.js';
import type { InstanceType } from '../cloud/provider.js';
import { isActive, isDaemonSetPod, isDeleting, nodePoolOf, type ClusterIndex, type StateNode } from '../cluster/state.js';
import type { NodePool, Pod } from '../cluster/types.js';
import { isCurrentlyReschedulable, simNodeFromState } from '../scheduling/from-state.js';
import type { PoolTemplate } from '../scheduling/new-claims.js';
import { allNonPendingScheduled, simulateScheduling, type SchedulingResult } from '../scheduling/simulate.js';
import type { Candidate } from './candidates.js';
import type { Replacement } from './command.js';
import type { MoveSimulation } from './methods/method.js';

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
    name: np.metadata.name, requirements: t.spec?.requirements ?? [], taints: t.spec?.taints ?? [],
    labels: t.metadata?.labels ?? {}, ...(np.spec.weight !== undefined && { weight: np.spec.weight }),
  };
}

/** One pod per DaemonSet, for the per-node overhead of new NodeClaims. Kept per pod list (an index's lists are never changed). */
export function daemonSetPods(pods: readonly Pod[]): Pod[] {
  let found = daemonSetPodsOf.get(pods);
  if (found === undefined) daemonSetPodsOf.set(pods, (found = findDaemonSetPods(pods)));
  return found;
}

const daemonSetPodsOf = new WeakMap<readonly Pod[], Pod[]>();

function findDaemonSetPods(pods: readonly Pod[]): Pod[] {
  const seen = new Map<string, Pod>();
  for (const p of pods) {
    if (!isDaemonSetPod(p)) continue;
    const owner = p.metadata.ownerReferences?.find((o) => o.kind === 'DaemonSet');
    const key = `${p.metadata.namespace}/${owner?.name}`;
    if (!seen.has(key)) seen.set(key, p);
  }
  return [...seen.values()];
}

export const isPending = (p: Pod): boolean => !p.spec.nodeName && isActive(p);

/** consolidateAfter also protects destination nodes (v1.14): a node with a recent pod event refuses candidates' pods. */
export function destinationBlocked(sn: StateNode, env: SimulationEnv): boolean {
  const after = env.policyFor(nodePoolOf(sn) ?? '')?.consolidateAfterSeconds;
  if (after === null || after === undefined || after === 0) return false;
  const init = sn.nodeClaim?.status?.conditions?.find((c) => c.type === 'Initialized');
  const ref = Date.parse(sn.nodeClaim?.status?.lastPodEventTime ?? init?.lastTransitionTime ?? '');
  return !Number.isNaN(ref) && env.now - ref < after * 1000;
}

export const deletingOrMarked = (sn: StateNode, env: SimulationEnv) =>
  isDeleting(sn) || sn.node?.metadata.deletionTimestamp !== undefined || (sn.providerID !== undefined && env.marked.has(sn.providerID));

export function runSimulation(index: ClusterIndex, moving: readonly StateNode[], consolidation: boolean, env: SimulationEnv): { result: SchedulingResult; pending: Pod[] } {
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
    for (const p of sn.pods) if (isCurrentlyReschedulable(index, p, env.now)) { pods.push(p); exempt.add(p); }
  }
  const result = simulateScheduling({
    pods, nodes, nodePools: index.snapshot.nodePools.map(poolTemplate), instanceTypes: env.instanceTypes,
    consolidation, exemptFromDestinationRule: exempt, daemonSetPods: daemonSetPods(index.snapshot.pods),
  });
  return { result, pending };
}

/** NodeClaims that only pending pods need are the provisioner's business, not a replacement. */
function forMovingPods(result: SchedulingResult, pending: ReadonlySet<Pod>): SchedulingResult['newNodeClaims'] {
  return result.newNodeClaims.filter((c) => !c.pods.every((x) => pending.has(x)));
}

/** A scheduling result as the methods see it: did every non-pending pod find a place, and which replacements it needs. */
export function toMoveSimulation(result: SchedulingResult, pending: ReadonlySet<Pod>): MoveSimulation {
  const ok = allNonPendingScheduled(result, pending);
  const firstError = [...result.errors].find(([p]) => !pending.has(p));
  const replacements: Replacement[] = forMovingPods(result, pending).map((c) => ({
    nodePool: c.nodePool,
    requirements: c.requirements,
    instanceTypes: c.instanceTypes.map((t) => t.name),
    price: c.instanceTypes.length ? cheapestOffering(c.instanceTypes[0])?.price ?? 0 : 0,
  }));
  const destinations = new Set<string>();
  for (const at of result.placements.values()) if ('node' in at) destinations.add(at.node);
  const common = { replacements, ...(destinations.size > 0 && { destinations: [...destinations].sort() }) };
  return ok ? { ok, ...common } : { ok, ...common, error: firstError ? `${firstError[0].metadata.namespace}/${firstError[0].metadata.name}: ${firstError[1]}` : 'not all pods would schedule' };
}

/**
 * The straightforward simulation: the whole input rebuilt for this one move. Kept as the
 * reference the pass is tested against, and as the benchmark's baseline.
 */
export function simulateMove(index: ClusterIndex, candidates: readonly Candidate[], consolidation: boolean, env: SimulationEnv): MoveSimulation {
  const { result, pending } = runSimulation(index, candidates.map((c) => c.sn), consolidation, env);
  return toMoveSimulation(result, new Set(pending));
}
