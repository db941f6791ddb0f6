// SPDX-License-Identifier: Apache-2.0
// SimulateScheduling (KARPENTER.md#scheduling-simulation): place pods on existing capacity first, then on as few
// new NodeClaims as possible, and report what could not be placed and why.
import type { InstanceType } from '../cloud/provider.js';
import type { Pod, Taint } from '../../core/cluster/types.js';
import {
  addPod,
  emptyClaimOf,
  preparePool,
  type PlannedClaim,
  type PoolTemplate,
  type PreparedPool,
  type Refusal,
  shapeKey,
} from './new-claims.js';
import { compatibleOfferings, sortByPrice } from './instance-types.js';
import { nodeLocalFit, type PlacementTarget } from './predicates.js';
import { requiredPodAntiAffinity } from './pod-spec.js';
import { toNodeSelectorRequirements } from '../../core/cluster/requirements.js';
import { addResources, podRequests, sumRequests, type Resources } from '../../core/cluster/resources.js';
import { topologyFit, type TopologyView } from './topology.js';
import type { NodeSelectorRequirement } from '../../core/cluster/types.js';

/** Existing capacity as the simulation sees it. */
export interface SimNode {
  name: string;
  labels: Record<string, string>;
  taints: Taint[];
  allocatable: Resources;
  /** Pods already bound there (they keep their place and count for resources and topology). */
  pods: Pod[];
  /** NodeClaim `Initialized`; unmanaged nodes count as initialized. */
  initialized: boolean;
  nodeClaim?: string;
  /** Inside its pool's consolidateAfter window: refuses candidates' pods in consolidation simulations. */
  consolidateAfterBlocked?: boolean;
}

export interface SchedulingInput {
  /** Pods to place. They are placed largest first (cpu, then memory, descending; ties keep input order). */
  pods: Pod[];
  /** Existing capacity, minus the candidates. Tried in name order, first fit. */
  nodes: SimNode[];
  nodePools: PoolTemplate[];
  instanceTypes: readonly InstanceType[];
  /** A consolidation simulation: nodes with `consolidateAfterBlocked` refuse non-exempt pods. */
  consolidation?: boolean;
  /**
   * Pending pods and pods of deleting nodes: exempt from the consolidateAfter destination rule
   * and from the uninitialized-node error.
   */
  exemptFromDestinationRule?: ReadonlySet<Pod>;
  /**
   * DaemonSet pods (one per DaemonSet is enough): each new NodeClaim reserves the requests of
   * those that would run on its pool's nodes before choosing instance types.
   */
  daemonSetPods?: readonly Pod[];
}

export type Placement = { node: string } | { newNodeClaim: number };

export interface NewNodeClaimPlan {
  nodePool: string;
  /** Pool requirements and labels narrowed by every pod on the claim (instance types are listed separately). */
  requirements: NodeSelectorRequirement[];
  /** Compatible with the pool and all pods, cheapest available offering first, at most 600. */
  instanceTypes: InstanceType[];
  pods: Pod[];
}

export interface SchedulingResult {
  placements: Map<Pod, Placement>;
  newNodeClaims: NewNodeClaimPlan[];
  /** Pods that could not be placed, or that landed on an uninitialized node. */
  errors: Map<Pod, string>;
  /** The run stopped once its outcome was decided (PreparedRun.stop): the pods after are not placed. */
  stopped?: true;
}

/** Karpenter's `MaxInstanceTypes`. */
export const MAX_INSTANCE_TYPES = 600;

interface ExistingSlot {
  node: SimNode;
  target: PlacementTarget & { pods: Pod[] };
}

/**
 * Largest first, as Karpenter's queue orders pods; stable. Sizes are read once per pod and the
 * indices sorted (every simulation run sorts its pods, thousands of times a pass).
 */
export function byDescendingSize(pods: readonly Pod[]): Pod[] {
  const n = pods.length;
  const cpu = new Float64Array(n);
  const memory = new Float64Array(n);
  const order = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const r = podRequests(pods[i]);
    cpu[i] = r.cpu ?? 0;
    memory[i] = r.memory ?? 0;
    order[i] = i;
  }
  order.sort((a, b) => cpu[b] - cpu[a] || memory[b] - memory[a] || a - b);
  const out = new Array<Pod>(n);
  for (let i = 0; i < n; i++) out[i] = pods[order[i]];
  return out;
}

export const byName = <T extends { name: string }>(a: T, b: T): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

export function simulateScheduling(input: SchedulingInput): SchedulingResult {
  const exempt = input.exemptFromDestinationRule ?? new Set<Pod>();
  const slots: ExistingSlot[] = [...input.nodes].sort(byName).map((node) => ({
    node,
    target: {
      name: node.name,
      labels: node.labels,
      taints: node.taints,
      allocatable: node.allocatable,
      pods: [...node.pods],
      requested: sumRequests(node.pods),
    },
  }));
  const pools = preparePools(input);
  const launchableZones = launchableZonesOf(pools);

  const claims: PlannedClaim[] = [];
  const targets: PlacementTarget[] = slots.map((s) => s.target);
  const holders: { pod: Pod; target: PlacementTarget }[] = targets.flatMap((target) =>
    target.pods.filter((p) => requiredPodAntiAffinity(p).length > 0).map((pod) => ({ pod, target })),
  );
  const view: TopologyView = {
    targets,
    antiAffinityHolders: holders,
    launchableZones,
    newHostnamePossible: pools.length > 0,
    version: 0,
  };
  const result: SchedulingResult = { placements: new Map(), newNodeClaims: [], errors: new Map() };

  const record = (pod: Pod, target: PlacementTarget): void => {
    view.version = (view.version ?? 0) + 1;
    if (requiredPodAntiAffinity(pod).length > 0) holders.push({ pod, target });
  };

  const claimTargets = inList(targets);
  for (const pod of byDescendingSize(input.pods)) {
    const slot = slots.find((s) => {
      if (input.consolidation && s.node.consolidateAfterBlocked && !exempt.has(pod)) return false;
      return (nodeLocalFit(pod, s.target) ?? topologyFit(pod, s.target, view)) === undefined;
    });
    if (slot) {
      slot.target.pods.push(pod);
      slot.target.requested = addResources(slot.target.requested ?? {}, podRequests(pod));
      record(pod, slot.target);
      if (!slot.node.initialized && !exempt.has(pod)) {
        result.errors.set(
          pod,
          `would schedule against uninitialized nodeclaim/${slot.node.nodeClaim ?? ''}, node/${slot.node.name}`,
        );
      } else result.placements.set(pod, { node: slot.node.name });
      continue;
    }
    const placed = placeOnClaims(pod, claims, pools, view, claimTargets, record);
    if (typeof placed === 'number') result.placements.set(pod, { newNodeClaim: placed });
    else result.errors.set(pod, placed);
  }

  result.newNodeClaims = claims.map(claimPlan);
  return result;
}

/** Where a run's view lists its claims' targets: after the nodes', each claim's once. */
export interface ClaimTargets {
  /** `next` in place of `previous`, or after every other target when there is no previous. */
  put(next: PlacementTarget, previous?: PlacementTarget): void;
}

/** ClaimTargets.put on a list that holds the claims' targets after any others. */
export function putTarget(targets: PlacementTarget[], next: PlacementTarget, previous?: PlacementTarget): void {
  // Claims' targets come after the nodes', so look from the end (a target is in the view once).
  const at = previous ? targets.lastIndexOf(previous) : -1;
  if (at >= 0) targets[at] = next;
  else targets.push(next);
}

/** The claims' targets kept in `targets` itself, after the nodes'. */
export const inList = (targets: PlacementTarget[]): ClaimTargets => ({
  put: (next, previous) => putTarget(targets, next, previous),
});

/** A planned claim as the result reports it: its instance types cheapest first, at most 600. */
export function claimPlan(c: PlannedClaim): NewNodeClaimPlan {
  return {
    nodePool: c.pool.template.name,
    requirements: toNodeSelectorRequirements(c.requirements),
    instanceTypes: sortByPrice(c.instanceTypes, c.requirements).slice(0, MAX_INSTANCE_TYPES),
    pods: c.pods,
  };
}

/** Pools in the order new claims try them: weight descending, then name. */
export function preparePools(
  input: Pick<SchedulingInput, 'nodePools' | 'instanceTypes' | 'daemonSetPods'>,
): PreparedPool[] {
  return [...input.nodePools]
    .sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0) || byName(a, b))
    .map((t) => preparePool(t, input.instanceTypes, input.daemonSetPods));
}

/** Zones some pool could launch a new NodeClaim in (empty spread domains that still count). */
export function launchableZonesOf(pools: readonly PreparedPool[]): string[] {
  return [
    ...new Set(
      pools.flatMap((p) => p.instanceTypes.flatMap((it) => compatibleOfferings(it, p.requirements).map((o) => o.zone))),
    ),
  ].sort();
}

/** Planned claims first (in opening order), then a new claim from the first pool that can take the pod. */
export function placeOnClaims(
  pod: Pod,
  claims: PlannedClaim[],
  pools: readonly PreparedPool[],
  view: TopologyView,
  targets: ClaimTargets,
  record: (pod: Pod, target: PlacementTarget) => void,
): number | string {
  const shape = shapeKey(pod);
  for (let i = 0; i < claims.length; i++) {
    const r = addPod(claims[i], pod, view, shape);
    if (r.ok) return commitClaim(pod, claims, i, r.claim, view, targets, record, claims[i].target);
  }
  if (pools.length === 0) return 'no nodepools found';
  // Why each pool refused, turned into text only when none takes the pod.
  const refusals: (Refusal | undefined)[] = [];
  for (const pool of pools) {
    if (pool.instanceTypes.length === 0) {
      refusals.push(undefined); // no instance type satisfied the pool's own requirements
      continue;
    }
    const r = addPod(emptyClaimOf(pool, claims.length), pod, view, shape);
    if (r.ok) return commitClaim(pod, claims, claims.length, r.claim, view, targets, record);
    refusals.push(r);
  }
  let reasons = '';
  for (let p = 0; p < pools.length; p++) {
    const r = refusals[p];
    reasons +=
      `${p > 0 ? '; ' : ''}incompatible with nodepool ${JSON.stringify(pools[p].template.name)}, ` +
      (r === undefined ? 'no instance type satisfied the nodepool requirements' : r.reason());
  }
  return reasons;
}

/** Claim `i` becomes `next`: its target replaces `previous` in the view (or joins it), and the pod is recorded. */
function commitClaim(
  pod: Pod,
  claims: PlannedClaim[],
  i: number,
  next: PlannedClaim,
  view: TopologyView,
  targets: ClaimTargets,
  record: (pod: Pod, target: PlacementTarget) => void,
  previous?: PlacementTarget,
): number {
  claims[i] = next;
  targets.put(next.target, previous);
  // Holders placed earlier on this claim must point at its current target.
  for (const h of view.antiAffinityHolders as { pod: Pod; target: PlacementTarget }[])
    if (h.target === previous) h.target = next.target;
  record(pod, next.target);
  return i;
}

/**
 * KARPENTER.md#scheduling-simulation's success criterion: every pod that is not pending found a place (errors on
 * pending pods do not count).
 */
export function allNonPendingScheduled(
  result: SchedulingResult,
  pendingPods: ReadonlySet<Pod> | readonly Pod[],
): boolean {
  const pending = pendingPods instanceof Set ? pendingPods : new Set(pendingPods as readonly Pod[]);
  for (const pod of result.errors.keys()) if (!pending.has(pod)) return false;
  return true;
}
