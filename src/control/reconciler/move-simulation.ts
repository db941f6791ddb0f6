// SPDX-License-Identifier: Apache-2.0
// A disruption move in simulation: the candidates' nodes leave, their pods are placed by the
// cluster simulation (src/world/scheduling/cluster-simulation.ts), and the outcome is what a method
// needs — did every non-pending pod find a place, and which replacements it takes.
import { cheapestOffering } from '../../world/cloud/catalog.js';
import type { Pod } from '../../core/cluster/types.js';
import { runSimulation, type SimulationEnv } from '../../world/scheduling/cluster-simulation.js';
import { allNonPendingScheduled, type SchedulingResult } from '../../world/scheduling/simulate.js';
import type { ClusterIndex } from '../../core/cluster/state.js';
import type { Candidate } from './methods/candidates.js';
import type { Replacement } from './methods/command.js';
import type { MoveSimulation } from './methods/method.js';

/** NodeClaims that only pending pods need are the provisioner's business, not a replacement. */
function forMovingPods(result: SchedulingResult, pending: ReadonlySet<Pod>): SchedulingResult['newNodeClaims'] {
  return result.newNodeClaims.filter((c) => !c.pods.every((x) => pending.has(x)));
}

/**
 * A scheduling result as the methods see it: did every non-pending pod find a place, and which replacements it needs.
 */
export function toMoveSimulation(result: SchedulingResult, pending: ReadonlySet<Pod>): MoveSimulation {
  const ok = allNonPendingScheduled(result, pending);
  const replacements: Replacement[] = forMovingPods(result, pending).map((c) => ({
    nodePool: c.nodePool,
    requirements: c.requirements,
    instanceTypes: c.instanceTypes.map((t) => t.name),
    price: c.instanceTypes.length ? (cheapestOffering(c.instanceTypes[0])?.price ?? 0) : 0,
  }));
  const destinations = new Set<string>();
  for (const at of result.placements.values()) if ('node' in at) destinations.add(at.node);
  const common = {
    replacements,
    ...(destinations.size > 0 && { destinations: [...destinations].sort() }),
    ...(result.stopped && { stopped: true as const }),
  };
  return ok ? { ok, ...common } : { ok, ...common, error: schedulingErrors(result.errors, pending) };
}

/** Karpenter names at most this many pods in a scheduling sentence. */
const MAX_ERRORS = 5;

/**
 * Karpenter's words for the pods left without a place (Results.NonPendingPodSchedulingErrors, as
 * pretty.Sentence capitalises it): up to five `<namespace>/<name> => <error> `, then how many
 * others, in the simulation's order (Karpenter's is a map's, so any). Pending pods' errors are not
 * the move's.
 */
export function schedulingErrors(errors: ReadonlyMap<Pod, string>, pending: ReadonlySet<Pod>): string {
  let message = 'Not all pods would schedule, ';
  let count = 0;
  for (const [pod, error] of errors) {
    if (pending.has(pod)) continue;
    if (count < MAX_ERRORS) message += `${pod.metadata.namespace}/${pod.metadata.name} => ${error} `;
    count++;
  }
  if (count === 0) return 'No Pod Scheduling Errors';
  // Karpenter adds the count once it has named five, also when no other is left.
  return count >= MAX_ERRORS ? `${message} and ${count - MAX_ERRORS} other(s)` : message;
}

/**
 * The straightforward simulation: the whole input rebuilt for this one move. Kept as the
 * reference the pass is tested against, and as the benchmark's baseline.
 */
export function simulateMove(
  index: ClusterIndex,
  candidates: readonly Candidate[],
  consolidation: boolean,
  env: SimulationEnv,
): MoveSimulation {
  const { result, pending } = runSimulation(
    index,
    candidates.map((c) => c.sn),
    consolidation,
    env,
  );
  return toMoveSimulation(result, new Set(pending));
}
