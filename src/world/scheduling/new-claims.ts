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
import { addResources, formatResources, podRequests, type Resources } from '../../core/cluster/resources.js';
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
  /** An empty claim's state, where every claim of this pool starts (see ClaimState). */
  readonly root: ClaimState;
  /** Empty claims of this pool by index (see emptyClaimOf). */
  readonly empties: PlannedClaim[];
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
 * alternatives, and every claim's requirements come from here (or are its pool's), so many
 * claim states share one requirements object and its conflicts are found once. Pure answers:
 * kept as long as the requirements object lives.
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
 * another pod of the same shape keeps its requirements object, so stepFor's answers for it hold).
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

/**
 * What addPod needs to know of a claim apart from its pods: requirements, instance types and
 * requests, with what a pod of each shape would do to them. A pool's claims all start at its
 * root; each move leads to one next state, so the same states come back pod after pod and
 * simulation after simulation (a consolidation pass plans the same claims for many candidates,
 * and pods of a ReplicaSet share a shape). Answers hold while the pool lives: one pass, while
 * offerings' availability holds.
 */
export interface ClaimState {
  readonly requirements: Requirements;
  /** Compatible with the requirements, the requests and every pod's alternative taken. */
  readonly instanceTypes: InstanceType[];
  readonly requested: Resources;
  /** The most of each resource any of the types offers (the claim's allocatable as placement sees it). */
  readonly allocatable: Resources;
  /** Per pod shape (shapeKey): one move per requirement alternative, in order. */
  readonly moves: Map<string, readonly Move[]>;
  /** Claim labels per index (claimLabels). */
  readonly labels: Readonly<Record<string, string>>[];
}

/** A pod's alternative taken on a state: the narrowed requirements, the types left, the next state. */
class Fit {
  readonly ok = true;
  /** Per zone, when the pod's zone matters and the claim's is open (zoneChoices). */
  private zones?: Map<string, ClaimState | null>;
  constructor(
    readonly next: ClaimState,
    private readonly pool: PreparedPool,
  ) {}

  /** `next` pinned to one zone (undefined: no type left there). */
  inZone(zone: string): ClaimState | undefined {
    this.zones ??= new Map();
    if (!this.zones.has(zone)) {
      const reqs = pinnedToZone(this.next.requirements, zone);
      const types = compatibleInstanceTypes(this.next.instanceTypes, reqs, this.next.requested);
      this.zones.set(zone, types.length === 0 ? null : stateOf(reqs, types, this.next.requested));
    }
    return this.zones.get(zone) ?? undefined;
  }
}

type Move = Fit | Refusal;

function stateOf(requirements: Requirements, instanceTypes: InstanceType[], requested: Resources): ClaimState {
  return {
    requirements,
    instanceTypes,
    requested,
    allocatable: largestOf(instanceTypes),
    moves: new Map(),
    labels: [],
  };
}

/**
 * A pod's shape as far as a claim's state is concerned: its alternatives (altKey) and requests.
 * Pods are never mutated, so the text is remembered per pod.
 */
const shapeKeys = new WeakMap<Pod, string>();

export function shapeKey(pod: Pod): string {
  let key = shapeKeys.get(pod);
  if (key === undefined) {
    key = interned(JSON.stringify([podRequirementAlternatives(pod).map(altKey), podRequests(pod)]));
    shapeKeys.set(pod, key);
  }
  return key;
}

/**
 * One string object per shape text, so that ClaimState.moves finds its entry by the string's
 * identity instead of comparing long texts. Bounded: past the limit it starts over, which costs
 * only speed.
 */
const internedShapes = new Map<string, string>();
const MAX_INTERNED_SHAPES = 4096;

function interned(text: string): string {
  const hit = internedShapes.get(text);
  if (hit !== undefined) return hit;
  if (internedShapes.size >= MAX_INTERNED_SHAPES) internedShapes.clear();
  internedShapes.set(text, text);
  return text;
}

/** The moves of a pod of this shape on the state, derived on first use. */
function movesOf(pool: PreparedPool, state: ClaimState, pod: Pod, key: string): readonly Move[] {
  let moves = state.moves.get(key);
  if (!moves) {
    const requested = addResources(state.requested, podRequests(pod));
    moves = podRequirementAlternatives(pod).map((alt): Move => {
      const step = stepFor(state.requirements, alt);
      if (step.conflict) return step.conflict;
      const types = compatibleInstanceTypes(state.instanceTypes, step.merged, requested);
      if (types.length === 0) return new NoInstanceType(pool, requested, step.merged);
      return new Fit(stateOf(step.merged, types, requested), pool);
    });
    state.moves.set(key, moves);
  }
  return moves;
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
  const root = stateOf(
    requirements,
    compatibleInstanceTypes(instanceTypes, requirements, daemonSetOverhead),
    daemonSetOverhead,
  );
  return {
    template,
    requirements,
    instanceTypes: root.instanceTypes,
    daemonSetOverhead,
    root,
    empties: [],
  };
}

/** A NodeClaim being planned; `target` is how placement checks see it. */
export interface PlannedClaim {
  index: number;
  pool: PreparedPool;
  /** Requirements, instance types and requests (also below, for readers) and what pods would do to them. */
  state: ClaimState;
  requirements: Requirements;
  instanceTypes: InstanceType[];
  pods: Pod[];
  requested: Resources;
  target: PlacementTarget;
}

/**
 * Labels a planned claim is sure to carry: pool labels, single-valued requirements, a placeholder
 * hostname. Remembered per state and index (targets never change their labels).
 */
function claimLabels(pool: PreparedPool, state: ClaimState, index: number): Readonly<Record<string, string>> {
  return (state.labels[index] ??= labelsOf(pool, state.requirements, index));
}

export function labelsOf(pool: PreparedPool, reqs: Requirements, index: number): Record<string, string> {
  const labels: Record<string, string> = {
    ...pool.template.labels,
    [LABEL_NODEPOOL]: pool.template.name,
    [LABEL_HOSTNAME]: `hostname-placeholder-${index}`,
  };
  for (const r of reqs.values()) if (!r.complement && r.values.size === 1) labels[r.key] = [...r.values][0];
  return labels;
}

const allocatables = new WeakMap<readonly InstanceType[], Resources>();

/** The most of each resource any of the types offers; lists are shared (states), so remembered per list. */
export function largestOf(instanceTypes: readonly InstanceType[]): Resources {
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
  state: ClaimState,
  index: number,
  pods: Pod[],
  requested: Resources,
): PlacementTarget {
  return {
    name: `nodeclaim-${index}`,
    labels: claimLabels(pool, state, index),
    taints: pool.template.taints,
    allocatable: state.allocatable,
    pods,
    requested,
    requirements: state.requirements,
  };
}

export type AddResult = { ok: true; claim: PlannedClaim } | Refusal;

const NO_TERM = new Refusal('did not match required node affinity');

/**
 * The claim with `pod` added, or why it cannot take it (`shape`: shapeKey(pod), when the caller
 * offers the pod to many claims). Pod requirement alternatives (nodeSelector
 * with each required-affinity term) are tried in order; the last one's refusal is the reason.
 * When the pod's zone matters for topology and the claim's zone is still open, the claim is
 * pinned to the first zone (sorted) that passes.
 */
export function addPod(claim: PlannedClaim, pod: Pod, view: TopologyView, shape = shapeKey(pod)): AddResult {
  const taint = taintsTolerated(pod, claim.pool.template.taints);
  if (taint) return new Refusal(taint);
  let refused: Refusal = NO_TERM;
  const moves = movesOf(claim.pool, claim.state, pod, shape);
  for (let m = 0; m < moves.length; m++) {
    const move = moves[m];
    if (!move.ok) {
      refused = move;
      continue;
    }
    const zones = zoneChoices(move.next, pod, view);
    for (let z = 0; z < (zones?.length ?? 1); z++) {
      const next = zones ? move.inZone(zones[z]) : move.next;
      if (!next) continue;
      // The claim as it is, seen with the requirements and types it would have (what topology checks).
      const probe = makeTarget(claim.pool, next, claim.index, claim.pods, claim.requested);
      const topo = topologyFit(pod, probe, view);
      if (topo) {
        refused = new Refusal(topo);
        continue;
      }
      const pods = [...claim.pods, pod];
      const target = makeTarget(claim.pool, next, claim.index, pods, next.requested);
      const added: PlannedClaim = {
        index: claim.index,
        pool: claim.pool,
        state: next,
        requirements: next.requirements,
        instanceTypes: next.instanceTypes,
        pods,
        requested: next.requested,
        target,
      };
      return { ok: true, claim: added };
    }
  }
  return refused;
}

/**
 * The zones to pin the claim to, in order, when the pod's zone matters and the claim's is still
 * open (its types' compatible offerings' zones, sorted); undefined to take it as it is.
 */
function zoneChoices(next: ClaimState, pod: Pod, view: TopologyView): string[] | undefined {
  const zone = next.requirements.get(LABEL_ZONE);
  if ((zone && !zone.complement && zone.values.size === 1) || !zoneMatters(pod, view)) return undefined;
  const zones = new Set<string>();
  for (const it of next.instanceTypes) for (const o of compatibleOfferings(it, next.requirements)) zones.add(o.zone);
  return [...zones].sort();
}

/** An empty claim from a pool, before its first pod; its requests start at the daemonset overhead. */
export function emptyClaim(pool: PreparedPool, index: number): PlannedClaim {
  const state = pool.root;
  return {
    index,
    pool,
    state,
    requirements: state.requirements,
    instanceTypes: state.instanceTypes,
    pods: [],
    requested: state.requested,
    target: makeTarget(pool, state, index, [], state.requested),
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
