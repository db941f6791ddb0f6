// SPDX-License-Identifier: Apache-2.0
// Test-only reference: new-claims.ts addPod and simulate.ts placeOnClaims as they were before their
// answers were remembered per claim requirements and pod shape (commit 19ee69a), so that
// claim-placement.property.test.ts can check the fast path decides exactly what this one decides.
// Its instance-type answers are kept apart from the pools' own (compatibleByPool).
import type { InstanceType } from '../../src/world/cloud/provider.js';
import { LABEL_ZONE, type Pod } from '../../src/core/cluster/types.js';
import {
  compatibleInstanceTypes,
  compatibleOfferings,
  undefinedLabelProblem,
} from '../../src/world/scheduling/instance-types.js';
import { podRequirementAlternatives } from '../../src/world/scheduling/pod-spec.js';
import { taintsTolerated, type PlacementTarget } from '../../src/world/scheduling/predicates.js';
import {
  intersect,
  intersectionProblem,
  requirementsFromLabels,
  toNodeSelectorRequirements,
  type Requirements,
} from '../../src/core/cluster/requirements.js';
import { addResources, formatResources, podRequests, type Resources } from '../../src/core/cluster/resources.js';
import { topologyFit, zoneMatters, type TopologyView } from '../../src/world/scheduling/topology.js';
// Unchanged by the fast path, so shared rather than copied: a claim's labels and largest capacity.
import { labelsOf, largestOf, type PlannedClaim, type PreparedPool } from '../../src/world/scheduling/new-claims.js';

/** A Requirements map as text: equal text, equal requirements. */
function requirementsKey(reqs: Requirements): string {
  let key = '';
  for (const k of [...reqs.keys()].sort()) {
    const r = reqs.get(k)!;
    key += `${k}${r.complement ? '!' : '='}${[...r.values].sort().join(',')}<${r.gt ?? ''}>${r.lt ?? ''};`;
  }
  return key;
}

const compatibleByPool = new WeakMap<PreparedPool, WeakMap<readonly InstanceType[], Map<string, InstanceType[]>>>();

/**
 * compatibleInstanceTypes, remembered per pool, input list, requirements and requests: claims
 * narrow the same lists the same way pod after pod, and a consolidation pass plans the same
 * claims for many candidates. Returned lists are shared and never mutated, so a narrowed list
 * is itself a key for the next pod. A pool lives for one pass, while offerings' availability holds.
 */
function compatibleFor(
  pool: PreparedPool,
  types: readonly InstanceType[],
  reqs: Requirements,
  requests: Resources,
): InstanceType[] {
  let perPool = compatibleByPool.get(pool);
  if (!perPool) {
    perPool = new WeakMap();
    compatibleByPool.set(pool, perPool);
  }
  let perList = perPool.get(types);
  if (!perList) {
    perList = new Map();
    perPool.set(types, perList);
  }
  const key = requirementsKey(reqs) + JSON.stringify(requests);
  let hit = perList.get(key);
  if (!hit) {
    hit = compatibleInstanceTypes(types, reqs, requests);
    perList.set(key, hit);
  }
  return hit;
}

function makeTarget(
  pool: PreparedPool,
  reqs: Requirements,
  index: number,
  pods: Pod[],
  requested: Resources,
  instanceTypes: readonly InstanceType[],
): PlacementTarget {
  const allocatable = largestOf(instanceTypes);
  return {
    name: `nodeclaim-${index}`,
    labels: labelsOf(pool, reqs, index),
    taints: pool.template.taints,
    allocatable,
    pods,
    requested,
    requirements: reqs,
  };
}

export type AddResult = { ok: true; claim: PlannedClaim } | { ok: false; reason: string };

/**
 * The claim with `pod` added, or why it cannot take it. Pod requirement alternatives (nodeSelector
 * with each required-affinity term) are tried in order. When the pod's zone matters for topology
 * and the claim's zone is still open, the claim is pinned to the first zone (sorted) that passes.
 */
export function addPod(claim: PlannedClaim, pod: Pod, view: TopologyView): AddResult {
  const taint = taintsTolerated(pod, claim.pool.template.taints);
  if (taint) return { ok: false, reason: taint };
  const requested = addResources(claim.requested, podRequests(pod));
  let reason = 'did not match required node affinity';
  for (const alt of podRequirementAlternatives(pod)) {
    const conflict = undefinedLabelProblem(claim.requirements, alt) ?? intersectionProblem(claim.requirements, alt);
    if (conflict) {
      reason = conflict;
      continue;
    }
    const merged = intersect(claim.requirements, alt);
    const types = compatibleFor(claim.pool, claim.instanceTypes, merged, requested);
    if (types.length === 0) {
      const overhead =
        Object.keys(claim.pool.daemonSetOverhead).length > 0
          ? `daemonset overhead=${formatResources(claim.pool.daemonSetOverhead)}, `
          : '';
      reason =
        `${overhead}no instance type satisfied resources ${formatResources(requested)} and ` +
        `requirements ${formatRequirements(merged)}`;
      continue;
    }
    for (const zoneReqs of zoneChoices(merged, types, pod, view)) {
      const zoneTypes = zoneReqs === merged ? types : compatibleFor(claim.pool, types, zoneReqs, requested);
      if (zoneTypes.length === 0) continue;
      const target = makeTarget(claim.pool, zoneReqs, claim.index, [...claim.pods, pod], requested, zoneTypes);
      const probe = { ...target, pods: claim.pods, requested: claim.requested };
      const topo = topologyFit(pod, probe, view);
      if (topo) {
        reason = topo;
        continue;
      }
      return {
        ok: true,
        claim: {
          ...claim,
          requirements: zoneReqs,
          instanceTypes: zoneTypes,
          pods: target.pods as Pod[],
          requested,
          target,
        },
      };
    }
  }
  return { ok: false, reason };
}

/** The requirements to try: as they are, or one per launchable zone when the pod's zone matters and is open. */
function zoneChoices(
  merged: Requirements,
  types: readonly InstanceType[],
  pod: Pod,
  view: TopologyView,
): Requirements[] {
  const zone = merged.get(LABEL_ZONE);
  if ((zone && !zone.complement && zone.values.size === 1) || !zoneMatters(pod, view)) return [merged];
  const zones = new Set<string>();
  for (const it of types) for (const o of compatibleOfferings(it, merged)) zones.add(o.zone);
  return [...zones].sort().map((z) => intersect(merged, requirementsFromLabels({ [LABEL_ZONE]: z })));
}

/** An empty claim from a pool, before its first pod; its requests start at the daemonset overhead. */
export function emptyClaim(pool: PreparedPool, index: number): PlannedClaim {
  const requested = pool.daemonSetOverhead;
  return {
    index,
    pool,
    state: pool.root, // not read here: the old code knows no states
    requirements: pool.requirements,
    instanceTypes: pool.instanceTypes,
    pods: [],
    requested,
    target: makeTarget(pool, pool.requirements, index, [], requested, pool.instanceTypes),
  };
}

const formatRequirements = (reqs: Requirements): string =>
  toNodeSelectorRequirements(reqs)
    .map((s) => `${s.key} ${s.operator}${s.values ? ` [${s.values.join(' ')}]` : ''}`)
    .join(', ');

/** Planned claims first (in opening order), then a new claim from the first pool that can take the pod. */
export function placeOnClaims(
  pod: Pod,
  claims: PlannedClaim[],
  pools: readonly PreparedPool[],
  view: TopologyView,
  targets: PlacementTarget[],
  record: (pod: Pod, target: PlacementTarget) => void,
): number | string {
  const commit = (i: number, next: PlannedClaim, previous?: PlacementTarget): number => {
    claims[i] = next;
    const at = previous ? targets.indexOf(previous) : -1;
    if (at >= 0) targets[at] = next.target;
    else targets.push(next.target);
    // Holders placed earlier on this claim must point at its current target.
    for (const h of view.antiAffinityHolders as { pod: Pod; target: PlacementTarget }[])
      if (h.target === previous) h.target = next.target;
    record(pod, next.target);
    return i;
  };
  for (let i = 0; i < claims.length; i++) {
    const r = addPod(claims[i], pod, view);
    if (r.ok) return commit(i, r.claim, claims[i].target);
  }
  if (pools.length === 0) return 'no nodepools found';
  const reasons: string[] = [];
  for (const pool of pools) {
    if (pool.instanceTypes.length === 0) {
      reasons.push(
        `incompatible with nodepool ${JSON.stringify(pool.template.name)}, no instance type ` +
          `satisfied the nodepool requirements`,
      );
      continue;
    }
    const r = addPod(emptyClaim(pool, claims.length), pod, view);
    if (r.ok) return commit(claims.length, r.claim);
    reasons.push(`incompatible with nodepool ${JSON.stringify(pool.template.name)}, ${r.reason}`);
  }
  return reasons.join('; ');
}
