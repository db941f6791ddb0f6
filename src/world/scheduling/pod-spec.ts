// SPDX-License-Identifier: Apache-2.0
// Typed readers for the scheduling parts of a pod spec that the cluster model keeps untyped
// (`spec.affinity`, `spec.topologySpreadConstraints`), plus the pod's node requirements.
import type { LabelSelectorSpec, NodeSelectorRequirement, Pod } from '../../core/cluster/types.js';
import {
  intersect,
  requirementsFromLabels,
  requirementsOf,
  type Requirements,
} from '../../core/cluster/requirements.js';

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface PodAffinityTerm {
  labelSelector?: LabelSelectorSpec;
  namespaces?: string[];
  namespaceSelector?: LabelSelectorSpec;
  topologyKey: string;
}

export interface TopologySpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway' | string;
  labelSelector?: LabelSelectorSpec;
  minDomains?: number;
}

interface Affinity {
  nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] } };
  podAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] };
  podAntiAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] };
}

const affinity = (pod: Pod): Affinity => (pod.spec.affinity ?? {}) as Affinity;

/** Required node affinity terms (ORed); undefined when the pod has none (every node passes). */
export function requiredNodeAffinityTerms(pod: Pod): NodeSelectorTerm[] | undefined {
  const required = affinity(pod).nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return required ? (required.nodeSelectorTerms ?? []) : undefined;
}

export const requiredPodAntiAffinity = (pod: Pod): PodAffinityTerm[] =>
  affinity(pod).podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];

export const requiredPodAffinity = (pod: Pod): PodAffinityTerm[] =>
  affinity(pod).podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];

/** Spread constraints that filter nodes (`whenUnsatisfiable: DoNotSchedule`). */
export const hardSpreadConstraints = (pod: Pod): TopologySpreadConstraint[] =>
  ((pod.spec.topologySpreadConstraints ?? []) as TopologySpreadConstraint[]).filter(
    (c) => c.whenUnsatisfiable === 'DoNotSchedule',
  );

const cache = new WeakMap<Pod, Requirements[]>();

/**
 * The pod's node requirements as alternatives: nodeSelector AND one required-affinity term,
 * one entry per term (a term with no expressions matches no node, so it is left out; `matchFields`
 * only pins DaemonSet pods to a node name and is ignored). No required affinity: one entry.
 */
export function podRequirementAlternatives(pod: Pod): Requirements[] {
  const hit = cache.get(pod);
  if (hit) return hit;
  const selector = requirementsFromLabels(pod.spec.nodeSelector);
  const terms = requiredNodeAffinityTerms(pod);
  const out =
    terms === undefined
      ? [selector]
      : terms
          .filter((t) => (t.matchExpressions?.length ?? 0) > 0)
          .map((t) => intersect(selector, requirementsOf(t.matchExpressions)));
  cache.set(pod, out);
  return out;
}

/**
 * Namespaces an affinity term's selector looks in: its own list, or the pod's namespace. `undefined` = all
 * (`namespaceSelector: {}`).
 */
export function termNamespaces(pod: Pod, term: PodAffinityTerm): ReadonlySet<string> | undefined {
  const sel = term.namespaceSelector;
  if (sel && Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0)
    return undefined;
  if (term.namespaces && term.namespaces.length > 0) return new Set(term.namespaces);
  return new Set([namespaceOf(pod)]);
}

export const namespaceOf = (pod: Pod): string => pod.metadata.namespace ?? 'default';
