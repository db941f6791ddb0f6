// SPDX-License-Identifier: Apache-2.0
// NodeClaims planned by a simulation: a NodePool template narrowed by each pod added, keeping
// every instance type that still fits all its pods (Karpenter's in-flight NodeClaim).
import type { InstanceType } from '../cloud/provider.js';
import {
  LABEL_HOSTNAME,
  LABEL_NODEPOOL,
  LABEL_ZONE,
  type NodeSelectorRequirement,
  type Pod,
  type Taint,
} from '../../core/cluster/types.js';
import { compatibleInstanceTypes, compatibleOfferings, undefinedLabelProblem } from './instance-types.js';
import { podRequirementAlternatives } from './pod-spec.js';
import { taintsTolerated, type PlacementTarget } from './predicates.js';
import {
  intersect,
  intersectionProblem,
  requirementsFromLabels,
  requirementsOf,
  toNodeSelectorRequirements,
  type Requirement,
  type Requirements,
} from '../../core/cluster/requirements.js';
import {
  addResources,
  fitsWithin,
  formatResources,
  podRequests,
  type Resources,
} from '../../core/cluster/resources.js';
import { topologyFit, zoneMatters, type TopologyView } from './topology.js';

/** What a simulation needs of a NodePool. */
export interface PoolTemplate {
  name: string;
  requirements: NodeSelectorRequirement[];
  taints: Taint[];
  labels: Record<string, string>;
  weight?: number;
}

/** A pool ready for planning: requirements merged with its labels, instance types pre-filtered. */
export interface PreparedPool {
  template: PoolTemplate;
  requirements: Requirements;
  instanceTypes: InstanceType[];
  /** Requests of the DaemonSet pods a new node of this pool would run (Karpenter's daemonset overhead). */
  daemonSetOverhead: Resources;
  /** compatibleInstanceTypes answers for claims of this pool (see compatibleFor). */
  readonly compatible: WeakMap<readonly InstanceType[], WeakMap<Requirements, WeakMap<Resources, InstanceType[]>>>;
  /** Empty claims of this pool by index (see emptyClaimOf). */
  readonly empties: PlannedClaim[];
  /** Claim labels per requirements and index (see claimLabels). */
  readonly labels: WeakMap<Requirements, Readonly<Record<string, string>>[]>;
}

/**
 * A pod's requirement alternative as text, in the alternative's own key and value order (the
 * first conflicting key and the intersection's order follow it): equal text, equal answers.
 * Alternatives are remembered per pod (podRequirementAlternatives), so each is keyed once.
 */
const altKeys = new WeakMap<Requirements, string>();

function altKey(alt: Requirements): string {
  let key = altKeys.get(alt);
  if (key === undefined) {
    const parts: unknown[] = [];
    for (const [k, r] of alt) parts.push(k, r.complement, [...r.values], r.gt ?? null, r.lt ?? null);
    key = JSON.stringify(parts);
    altKeys.set(alt, key);
  }
  return key;
}

/**
 * Why a claim refuses a pod; the text is built only when the pod ends up unscheduled (classes,
 * not closures: this runs for every pod and claim, and tsx names each closure it creates).
 */
export class Refusal {
  readonly ok = false;
  constructor(private readonly text: string) {}
  reason(): string {
    return this.text;
  }
}

/** No instance type takes the claim's requests with these requirements. */
class NoInstanceType extends Refusal {
  constructor(
    private readonly pool: PreparedPool,
    private readonly requested: Resources,
    private readonly merged: Requirements,
  ) {
    super('');
  }
  override reason(): string {
    const overhead =
      Object.keys(this.pool.daemonSetOverhead).length > 0
        ? `daemonset overhead=${formatResources(this.pool.daemonSetOverhead)}, `
        : '';
    return (
      `${overhead}no instance type satisfied resources ${formatResources(this.requested)} and ` +
      `requirements ${formatRequirements(this.merged)}`
    );
  }
}

/** One alternative against one claim's requirements: why they conflict, or their intersection. */
type Step = { conflict: Refusal; merged?: undefined } | { conflict?: undefined; merged: Requirements };

/**
 * Steps per claim requirements and alternative text. Pods of a ReplicaSet share their
 * alternatives, and every claim's requirements come from here (or are its pool's), so the same
 * objects come back pod after pod and simulation after simulation, and the later caches can
 * key on them by identity. Pure answers: kept as long as the requirements object lives.
 */
const steps = new WeakMap<Requirements, Map<string, Step>>();

function stepFor(reqs: Requirements, alt: Requirements): Step {
  let perReqs = steps.get(reqs);
  if (!perReqs) {
    perReqs = new Map();
    steps.set(reqs, perReqs);
  }
  const key = altKey(alt);
  let step = perReqs.get(key);
  if (!step) {
    const conflict = undefinedLabelProblem(reqs, alt) ?? intersectionProblem(reqs, alt);
    step = conflict !== undefined ? { conflict: new Refusal(conflict) } : { merged: narrowed(reqs, alt) };
    perReqs.set(key, step);
  }
  return step;
}

/**
 * intersect(reqs, alt), or `reqs` itself when the alternative narrows nothing (a claim taking
 * another pod of the same shape keeps its requirements object, so the caches keyed on it hit).
 * Only value order in a set may differ then, and nothing reads that order (messages and plans sort).
 */
function narrowed(reqs: Requirements, alt: Requirements): Requirements {
  const merged = intersect(reqs, alt);
  if (merged.size !== reqs.size) return merged;
  for (const [key, r] of merged) if (!sameRequirement(r, reqs.get(key))) return merged;
  return reqs;
}

function sameRequirement(a: Requirement, b: Requirement | undefined): boolean {
  if (b === undefined || a.complement !== b.complement || a.gt !== b.gt || a.lt !== b.lt) return false;
  if (a.values.size !== b.values.size) return false;
  for (const v of a.values) if (!b.values.has(v)) return false;
  return true;
}

/** `reqs` pinned to one zone, one object per (requirements, zone) like stepFor's. */
const zonePins = new WeakMap<Requirements, Map<string, Requirements>>();

function pinnedToZone(reqs: Requirements, zone: string): Requirements {
  let perReqs = zonePins.get(reqs);
  if (!perReqs) {
    perReqs = new Map();
    zonePins.set(reqs, perReqs);
  }
  let pinned = perReqs.get(zone);
  if (!pinned) {
    pinned = intersect(reqs, requirementsFromLabels({ [LABEL_ZONE]: zone }));
    perReqs.set(zone, pinned);
  }
  return pinned;
}

/** A pod's requests as text, per pod (requests are remembered per pod and never change). */
const requestKeys = new WeakMap<Pod, string>();

/**
 * A claim's requests with the pod's added: one object per (claim requests, pod requests text),
 * so that compatibleFor can key on requests by identity. The chain starts at the pool's
 * DaemonSet overhead (emptyClaim).
 */
const sums = new WeakMap<Resources, Map<string, Resources>>();

function requestedWith(base: Resources, pod: Pod): Resources {
  let key = requestKeys.get(pod);
  if (key === undefined) {
    key = JSON.stringify(podRequests(pod));
    requestKeys.set(pod, key);
  }
  let perBase = sums.get(base);
  if (!perBase) {
    perBase = new Map();
    sums.set(base, perBase);
  }
  let sum = perBase.get(key);
  if (!sum) {
    sum = addResources(base, podRequests(pod));
    perBase.set(key, sum);
  }
  return sum;
}

/** Shared like every answer of compatibleFor: never mutated. */
const NONE: InstanceType[] = [];

/**
 * compatibleInstanceTypes, remembered per pool, input list, requirements and requests: claims
 * narrow the same lists the same way pod after pod, and a consolidation pass plans the same
 * claims for many candidates. Returned lists are shared and never mutated, so a narrowed list
 * is itself a key for the next pod; requirements and requests are the shared objects of stepFor,
 * pinnedToZone and requestedWith, so they are keys by identity too (an equal object reached
 * another way only misses). A pool lives for one pass, while offerings' availability holds.
 */
function compatibleFor(
  pool: PreparedPool,
  types: readonly InstanceType[],
  reqs: Requirements,
  requests: Resources,
): InstanceType[] {
  // A claim that is full for every type it may still be: the answer is empty whatever the
  // requirements (the largest capacities bound every type's, and the fit test is monotone).
  if (!fitsWithin(requests, largestOf(types))) return NONE;
  let perList = pool.compatible.get(types);
  if (!perList) {
    perList = new WeakMap();
    pool.compatible.set(types, perList);
  }
  let perReqs = perList.get(reqs);
  if (!perReqs) {
    perReqs = new WeakMap();
    perList.set(reqs, perReqs);
  }
  let hit = perReqs.get(requests);
  if (!hit) {
    hit = compatibleInstanceTypes(types, reqs, requests);
    perReqs.set(requests, hit);
  }
  return hit;
}

/**
 * Merges the pool's requirements with its labels, keeps the instance types they allow, and sums
 * the DaemonSet pods that would land on its nodes (they tolerate its taints and their node
 * requirements are compatible with its requirements).
 */
export function preparePool(
  template: PoolTemplate,
  instanceTypes: readonly InstanceType[],
  daemonSetPods: readonly Pod[] = [],
): PreparedPool {
  const requirements = intersect(
    intersect(requirementsOf(template.requirements), requirementsFromLabels(template.labels)),
    requirementsFromLabels({ [LABEL_NODEPOOL]: template.name }),
  );
  let daemonSetOverhead: Resources = {};
  for (const ds of daemonSetPods) {
    if (taintsTolerated(ds, template.taints) !== undefined) continue;
    if (!podRequirementAlternatives(ds).some((alt) => intersectionProblem(requirements, alt) === undefined)) continue;
    daemonSetOverhead = addResources(daemonSetOverhead, podRequests(ds));
  }
  return {
    template,
    requirements,
    instanceTypes: compatibleInstanceTypes(instanceTypes, requirements, daemonSetOverhead),
    daemonSetOverhead,
    compatible: new WeakMap(),
    empties: [],
    labels: new WeakMap(),
  };
}

/** A NodeClaim being planned; `target` is how placement checks see it. */
export interface PlannedClaim {
  index: number;
  pool: PreparedPool;
  requirements: Requirements;
  instanceTypes: InstanceType[];
  pods: Pod[];
  requested: Resources;
  target: PlacementTarget;
}

/**
 * Labels a planned claim is sure to carry: pool labels, single-valued requirements, a placeholder
 * hostname. Remembered per requirements object and index (targets never change their labels).
 */
function claimLabels(pool: PreparedPool, reqs: Requirements, index: number): Readonly<Record<string, string>> {
  let perIndex = pool.labels.get(reqs);
  if (!perIndex) {
    perIndex = [];
    pool.labels.set(reqs, perIndex);
  }
  return (perIndex[index] ??= labelsOf(pool, reqs, index));
}

function labelsOf(pool: PreparedPool, reqs: Requirements, index: number): Record<string, string> {
  const labels: Record<string, string> = {
    ...pool.template.labels,
    [LABEL_NODEPOOL]: pool.template.name,
    [LABEL_HOSTNAME]: `hostname-placeholder-${index}`,
  };
  for (const r of reqs.values()) if (!r.complement && r.values.size === 1) labels[r.key] = [...r.values][0];
  return labels;
}

const allocatables = new WeakMap<readonly InstanceType[], Resources>();

/** The most of each resource any of the types offers; lists are shared (compatibleFor), so remembered per list. */
function largestOf(instanceTypes: readonly InstanceType[]): Resources {
  let allocatable = allocatables.get(instanceTypes);
  if (!allocatable) {
    const out: Record<string, number> = {};
    for (const it of instanceTypes) for (const [k, v] of Object.entries(it.capacity)) out[k] = Math.max(out[k] ?? 0, v);
    allocatable = out;
    allocatables.set(instanceTypes, allocatable);
  }
  return allocatable;
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
    labels: claimLabels(pool, reqs, index),
    taints: pool.template.taints,
    allocatable,
    pods,
    requested,
    requirements: reqs,
  };
}

export type AddResult = { ok: true; claim: PlannedClaim } | Refusal;

const NO_TERM = new Refusal('did not match required node affinity');

/**
 * The claim with `pod` added, or why it cannot take it. Pod requirement alternatives (nodeSelector
 * with each required-affinity term) are tried in order; the last one's refusal is the reason.
 * When the pod's zone matters for topology and the claim's zone is still open, the claim is
 * pinned to the first zone (sorted) that passes.
 */
export function addPod(claim: PlannedClaim, pod: Pod, view: TopologyView): AddResult {
  const taint = taintsTolerated(pod, claim.pool.template.taints);
  if (taint) return new Refusal(taint);
  let requested: Resources | undefined;
  let refused: Refusal = NO_TERM;
  for (const alt of podRequirementAlternatives(pod)) {
    const step = stepFor(claim.requirements, alt);
    if (step.conflict) {
      refused = step.conflict;
      continue;
    }
    const merged = step.merged;
    requested ??= requestedWith(claim.requested, pod);
    const types = compatibleFor(claim.pool, claim.instanceTypes, merged, requested);
    if (types.length === 0) {
      refused = new NoInstanceType(claim.pool, requested, merged);
      continue;
    }
    for (const zoneReqs of zoneChoices(merged, types, pod, view)) {
      const zoneTypes = zoneReqs === merged ? types : compatibleFor(claim.pool, types, zoneReqs, requested);
      if (zoneTypes.length === 0) continue;
      // The claim as it is, seen with the requirements and types it would have (what topology checks).
      const probe = makeTarget(claim.pool, zoneReqs, claim.index, claim.pods, claim.requested, zoneTypes);
      const topo = topologyFit(pod, probe, view);
      if (topo) {
        refused = new Refusal(topo);
        continue;
      }
      const target = { ...probe, pods: [...claim.pods, pod], requested };
      return {
        ok: true,
        claim: {
          ...claim,
          requirements: zoneReqs,
          instanceTypes: zoneTypes,
          pods: target.pods,
          requested,
          target,
        },
      };
    }
  }
  return refused;
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
  return [...zones].sort().map((z) => pinnedToZone(merged, z));
}

/** An empty claim from a pool, before its first pod; its requests start at the daemonset overhead. */
export function emptyClaim(pool: PreparedPool, index: number): PlannedClaim {
  const requested = pool.daemonSetOverhead;
  return {
    index,
    pool,
    requirements: pool.requirements,
    instanceTypes: pool.instanceTypes,
    pods: [],
    requested,
    target: makeTarget(pool, pool.requirements, index, [], requested, pool.instanceTypes),
  };
}

/**
 * emptyClaim, remembered per pool and index: placeOnClaims offers every pod to every pool, and
 * addPod never changes the claim it is given (it returns a new one).
 */
export function emptyClaimOf(pool: PreparedPool, index: number): PlannedClaim {
  return (pool.empties[index] ??= emptyClaim(pool, index));
}

const formatRequirements = (reqs: Requirements): string =>
  toNodeSelectorRequirements(reqs)
    .map((s) => `${s.key} ${s.operator}${s.values ? ` [${s.values.join(' ')}]` : ''}`)
    .join(', ');
