// SPDX-License-Identifier: Apache-2.0
// Checks that look across targets: required pod (anti-)affinity and DoNotSchedule topology
// spread on any topology key (kpol's callers use kubernetes.io/hostname and
// topology.kubernetes.io/zone). Domains and counts come from the targets in the view.
import { matchesLabelSelector } from '../../core/cluster/labels.js';
import { LABEL_HOSTNAME, LABEL_ZONE, type LabelSelectorSpec, type Pod } from '../../core/cluster/types.js';
import {
  namespaceOf,
  requiredPodAffinity,
  requiredPodAntiAffinity,
  hardSpreadConstraints,
  podRequirementAlternatives,
  termNamespaces,
  type PodAffinityTerm,
} from './pod-spec.js';
import { nodeRequirementsFit, type PlacementTarget } from './predicates.js';
import { allows } from '../../core/cluster/requirements.js';
import { ownValue } from '../../core/cluster/own-keys.js';

/** Everything the topology checks may look at. */
export interface TopologyView {
  /** Every node and planned NodeClaim, with the pods on each. */
  readonly targets: readonly PlacementTarget[];
  /** Placed pods that carry required anti-affinity, with where they are (checked symmetrically). */
  readonly antiAffinityHolders: readonly { pod: Pod; target: PlacementTarget }[];
  /** Zones a new NodeClaim could be launched in: empty spread domains that still count. */
  readonly launchableZones?: readonly string[];
  /** Whether a new node (an empty hostname domain) could be launched. */
  readonly newHostnamePossible?: boolean;
  /**
   * Bumped by the owner whenever a pod is placed; spread counts are cached per (view, pod,
   * version), so one pod's checks against many targets count domains once.
   */
  version?: number;
}

/** A view over targets, finding the anti-affinity holders among their pods. */
export function topologyView(
  targets: readonly PlacementTarget[],
  opts: { launchableZones?: readonly string[]; newHostnamePossible?: boolean } = {},
): TopologyView {
  const antiAffinityHolders = targets.flatMap((target) =>
    target.pods.filter((pod) => requiredPodAntiAffinity(pod).length > 0).map((pod) => ({ pod, target })),
  );
  return { targets, antiAffinityHolders, ...opts };
}

function termMatches(owner: Pod, term: PodAffinityTerm, other: Pod): boolean {
  const namespaces = termNamespaces(owner, term);
  if (namespaces && !namespaces.has(namespaceOf(other))) return false;
  return matchesLabelSelector(other.metadata.labels, term.labelSelector);
}

const sameDomain = (a: PlacementTarget, b: PlacementTarget, key: string): boolean =>
  a === b || (ownValue(a.labels, key) !== undefined && ownValue(a.labels, key) === ownValue(b.labels, key));

const podName = (p: Pod): string => `${namespaceOf(p)}/${p.metadata.name}`;
/** The target's value of a topology key, a key from the pod spec (own labels only). */
const domainOf = (t: PlacementTarget, key: string): string | undefined => ownValue(t.labels, key);

/**
 * Where the anti-affinity check looks, by topology domain: the view's targets and its holders'
 * places, by each key's value, in view order. Without it every check scanned every target and
 * every holder, which made a consolidation pass over a cluster of anti-affine pods quadratic
 * (test/k8s/karpenter/README.md, the side-by-side bench). Rebuilt when the view changes: its
 * owner bumps `version` on every placement, and targets and holders only change then.
 */
interface DomainIndex {
  stamp: string;
  targets: Map<string, Map<string, number[]>>;
  targetAt: Map<PlacementTarget, number>;
  holders: Map<string, Map<string, number[]>>;
  holdersAt: Map<PlacementTarget, number[]>;
  holderKeys: string[];
}

const domainIndexes = new WeakMap<TopologyView, DomainIndex>();

function push<K>(m: Map<K, number[]>, k: K, i: number): void {
  const list = m.get(k);
  if (list) list.push(i);
  else m.set(k, [i]);
}

function domainIndex(view: TopologyView): DomainIndex {
  const stamp = `${view.version}/${view.targets.length}/${view.antiAffinityHolders.length}`;
  const kept = view.version === undefined ? undefined : domainIndexes.get(view);
  if (kept?.stamp === stamp) return kept;
  const index: DomainIndex = {
    stamp,
    targets: new Map(),
    targetAt: new Map(),
    holders: new Map(),
    holdersAt: new Map(),
    holderKeys: [],
  };
  view.targets.forEach((t, i) => index.targetAt.has(t) || index.targetAt.set(t, i));
  const keys = new Set<string>();
  view.antiAffinityHolders.forEach(({ pod, target }, i) => {
    push(index.holdersAt, target, i);
    for (const term of requiredPodAntiAffinity(pod)) keys.add(term.topologyKey);
  });
  index.holderKeys = [...keys];
  for (const key of keys) {
    const byValue = new Map<string, number[]>();
    view.antiAffinityHolders.forEach(({ target }, i) => {
      const v = ownValue(target.labels, key);
      if (v !== undefined) push(byValue, v, i);
    });
    index.holders.set(key, byValue);
  }
  if (view.version !== undefined) domainIndexes.set(view, index);
  return index;
}

/** The view's targets in `target`'s domain of `key` (sameDomain), in view order. */
function targetsInDomain(view: TopologyView, index: DomainIndex, target: PlacementTarget, key: string): number[] {
  let byValue = index.targets.get(key);
  if (!byValue) {
    byValue = new Map();
    const m = byValue;
    view.targets.forEach((t, i) => {
      const v = ownValue(t.labels, key);
      if (v !== undefined) push(m, v, i);
    });
    index.targets.set(key, byValue);
  }
  const value = ownValue(target.labels, key);
  const same = value === undefined ? [] : (byValue.get(value) ?? []);
  const self = index.targetAt.get(target);
  return self === undefined || same.includes(self) ? same : [...same, self].sort((a, b) => a - b);
}

/** The holders placed in `target`'s domain of any of their keys, in view order (a superset to check). */
function holdersNear(index: DomainIndex, target: PlacementTarget): number[] {
  const found = new Set<number>(index.holdersAt.get(target));
  for (const key of index.holderKeys) {
    const value = ownValue(target.labels, key);
    if (value !== undefined) for (const i of index.holders.get(key)?.get(value) ?? []) found.add(i);
  }
  return [...found].sort((a, b) => a - b);
}

/** Required anti-affinity both ways: the pod's own terms, and placed pods' terms that select the pod. */
export function antiAffinityFits(pod: Pod, target: PlacementTarget, view: TopologyView): string | undefined {
  const ownTerms = requiredPodAntiAffinity(pod);
  if (ownTerms.length === 0 && view.antiAffinityHolders.length === 0) return undefined;
  const index = domainIndex(view);
  for (const term of ownTerms) {
    if (target !== undefined && domainOf(target, term.topologyKey) === undefined && term.topologyKey !== LABEL_HOSTNAME)
      continue;
    for (const i of targetsInDomain(view, index, target, term.topologyKey)) {
      const other = view.targets[i]!;
      const hit = other.pods.find((p) => p !== pod && termMatches(pod, term, p));
      const domain = domainOf(target, term.topologyKey) ?? target.name;
      if (hit) return `pod anti-affinity: ${podName(hit)} already in ${term.topologyKey}=${domain}`;
    }
  }
  for (const i of holdersNear(index, target)) {
    const { pod: holder, target: where } = view.antiAffinityHolders[i]!;
    if (holder === pod) continue;
    for (const term of requiredPodAntiAffinity(holder)) {
      if (!sameDomain(where, target, term.topologyKey) || !termMatches(holder, term, pod)) continue;
      const domain = domainOf(target, term.topologyKey) ?? target.name;
      return `pod anti-affinity of ${podName(holder)} in ${term.topologyKey}=${domain}`;
    }
  }
  return undefined;
}

/**
 * Required pod affinity: a matching pod in the target's domain; or, as the kube-scheduler
 * allows, no matching pod anywhere and the pod matches its own term (the first of a group).
 */
export function podAffinityFits(pod: Pod, target: PlacementTarget, view: TopologyView): string | undefined {
  for (const term of requiredPodAffinity(pod)) {
    const inDomain = view.targets.some(
      (t) => sameDomain(t, target, term.topologyKey) && t.pods.some((p) => p !== pod && termMatches(pod, term, p)),
    );
    if (inDomain) continue;
    const anywhere = view.targets.some((t) => t.pods.some((p) => p !== pod && termMatches(pod, term, p)));
    if (!anywhere && termMatches(pod, term, pod)) continue;
    return `pod affinity: no matching pod in ${term.topologyKey}=${domainOf(target, term.topologyKey) ?? '<absent>'}`;
  }
  return undefined;
}

const FRESH_HOST = '\u0000fresh';

function podAllowsZone(pod: Pod, zone: string): boolean {
  return podRequirementAlternatives(pod).some((alt) => {
    const r = alt.get(LABEL_ZONE);
    return r === undefined || allows(r, zone);
  });
}

const selectorMatches = (pod: Pod, selector: LabelSelectorSpec | undefined, other: Pod): boolean =>
  namespaceOf(other) === namespaceOf(pod) && matchesLabelSelector(other.metadata.labels, selector);

/**
 * DoNotSchedule topology spread: `count(domain) + self − min(count) ≤ maxSkew` over eligible
 * domains (targets carrying the key whose labels pass the pod's node affinity, plus launchable
 * zones and a fresh hostname); fewer domains than `minDomains` makes the minimum 0.
 */
export function topologySpreadFits(pod: Pod, target: PlacementTarget, view: TopologyView): string | undefined {
  const constraints = hardSpreadConstraints(pod);
  for (const [i, c] of constraints.entries()) {
    const key = c.topologyKey;
    const domain = ownValue(target.labels, key);
    if (domain === undefined) return `missing topology key ${key} for spread constraint`;
    const counts = spreadCounts(pod, i, view);
    const here = counts.get(domain) ?? 0;
    const size = counts.has(domain) ? counts.size : counts.size + 1;
    const min = c.minDomains !== undefined && size < c.minDomains ? 0 : Math.min(here, ...counts.values());
    const self = selectorMatches(pod, c.labelSelector, pod) ? 1 : 0;
    if (here + self - min > c.maxSkew)
      return `topology spread ${key} maxSkew ${c.maxSkew}: ${key}=${domain} has ${here} matching pods, minimum ${min}`;
  }
  return undefined;
}

const matchCache = new WeakMap<PlacementTarget, Map<string, { len: number; pods: Pod[] }>>();

/**
 * The pods on a target that a spread selector counts, cached per target and selector; targets
 * only ever gain pods during a simulation, so the pod count tells whether the entry is stale.
 */
function matchingPods(t: PlacementTarget, namespace: string, selector: LabelSelectorSpec | undefined): Pod[] {
  let perTarget = matchCache.get(t);
  if (!perTarget) {
    perTarget = new Map();
    matchCache.set(t, perTarget);
  }
  const key = namespace + '\u0000' + JSON.stringify(selector ?? null);
  const hit = perTarget.get(key);
  if (hit && hit.len === t.pods.length) return hit.pods;
  const pods = t.pods.filter((p) => namespaceOf(p) === namespace && matchesLabelSelector(p.metadata.labels, selector));
  perTarget.set(key, { len: t.pods.length, pods });
  return pods;
}

const spreadCache = new WeakMap<
  TopologyView,
  { version: number | undefined; byPod: Map<Pod, Map<string, number>[]> }
>();

/** Matching pods per eligible domain for the pod's i-th hard spread constraint (cached per view version). */
function spreadCounts(pod: Pod, i: number, view: TopologyView): Map<string, number> {
  let cache = spreadCache.get(view);
  if (!cache || cache.version !== view.version) {
    cache = { version: view.version, byPod: new Map() };
    spreadCache.set(view, cache);
  }
  let perConstraint = cache.byPod.get(pod);
  if (!perConstraint) {
    perConstraint = [];
    cache.byPod.set(pod, perConstraint);
  }
  const hit = perConstraint[i];
  if (hit) return hit;
  const c = hardSpreadConstraints(pod)[i];
  const key = c.topologyKey;
  const counts = new Map<string, number>();
  for (const t of view.targets) {
    const d = ownValue(t.labels, key);
    if (d === undefined || nodeRequirementsFit(pod, t) !== undefined) continue;
    const matched = matchingPods(t, namespaceOf(pod), c.labelSelector);
    counts.set(d, (counts.get(d) ?? 0) + matched.length - (matched.includes(pod) ? 1 : 0));
  }
  if (key === LABEL_ZONE)
    for (const z of view.launchableZones ?? []) if (!counts.has(z) && podAllowsZone(pod, z)) counts.set(z, 0);
  if (key === LABEL_HOSTNAME && view.newHostnamePossible) counts.set(FRESH_HOST, 0);
  perConstraint[i] = counts;
  return counts;
}

/** Whether the pod's placement depends on which zone its target is in. */
export function zoneMatters(pod: Pod, view: TopologyView): boolean {
  if (hardSpreadConstraints(pod).some((c) => c.topologyKey === LABEL_ZONE)) return true;
  if ([...requiredPodAntiAffinity(pod), ...requiredPodAffinity(pod)].some((t) => t.topologyKey === LABEL_ZONE))
    return true;
  return view.antiAffinityHolders.some(({ pod: h }) =>
    requiredPodAntiAffinity(h).some((t) => t.topologyKey === LABEL_ZONE && termMatches(h, t, pod)),
  );
}

/** All topology checks in order; the first failure. */
export function topologyFit(pod: Pod, target: PlacementTarget, view: TopologyView): string | undefined {
  return (
    antiAffinityFits(pod, target, view) ?? podAffinityFits(pod, target, view) ?? topologySpreadFits(pod, target, view)
  );
}
