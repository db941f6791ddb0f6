// SPDX-License-Identifier: Apache-2.0
// Node-local fit checks of one pod on one target (an existing node or a NodeClaim being
// planned), each returning the reason it does not fit or undefined (Pepr's filter style).
// Topology checks that look across targets live in topology.ts.
import { TAINT_DISRUPTED, type Pod, type Taint, type Toleration } from '../../core/cluster/types.js';
import { podRequirementAlternatives, requiredNodeAffinityTerms } from './pod-spec.js';
import {
  formatQuantity,
  insufficientResource,
  podRequests,
  remaining,
  sumRequests,
  type Resources,
} from '../../core/cluster/resources.js';
import { intersectionProblem, matchesExpression, type Requirements } from '../../core/cluster/requirements.js';
import { ownValue } from '../../core/cluster/own-keys.js';

/** Somewhere a pod can be placed, with what is already there. */
export interface PlacementTarget {
  name: string;
  labels: Readonly<Record<string, string>>;
  taints: readonly Taint[];
  allocatable: Resources;
  /**
   * Pods already placed here (bound, or placed earlier in this simulation); only ever appended to (topology caches rely
   * on it).
   */
  pods: readonly Pod[];
  /** Σ requests of `pods`; computed when absent. */
  requested?: Resources;
  /**
   * A NodeClaim still being planned: its labels are not final, so node-affinity questions are
   * answered by intersecting with these requirements instead of matching labels.
   */
  requirements?: Requirements;
}

export const requestedOn = (t: PlacementTarget): Resources => t.requested ?? sumRequests(t.pods);

export function resourcesFit(pod: Pod, target: PlacementTarget): string | undefined {
  const free = remaining(target.allocatable, requestedOn(target));
  const short = insufficientResource(podRequests(pod), free);
  if (!short) return undefined;
  // No closure here: this runs for every pod × target that does not fit, and tsx names each closure it creates.
  const name = short.name;
  return (
    `insufficient ${name} (requested ${formatQuantity(name, short.requested)}, ` +
    `free ${formatQuantity(name, Math.max(0, short.available))} ` +
    `of ${formatQuantity(name, target.allocatable[name] ?? 0)})`
  );
}

export function nodeSelectorFits(pod: Pod, labels: Readonly<Record<string, string>>): string | undefined {
  const selector = pod.spec.nodeSelector;
  if (selector === undefined) return undefined;
  // for-in over own keys, not Object.entries: asked for every pod × node a simulation tries.
  for (const k in selector) {
    if (!Object.hasOwn(selector, k)) continue;
    const v = selector[k];
    const have = ownValue(labels, k);
    if (have !== v) return `node selector ${k}=${v} does not match (${k}=${have ?? '<absent>'})`;
  }
  return undefined;
}

/** Required node affinity: some term whose expressions all match (a term with no expressions matches nothing). */
export function nodeAffinityFits(pod: Pod, labels: Readonly<Record<string, string>>): string | undefined {
  const terms = requiredNodeAffinityTerms(pod);
  if (terms === undefined) return undefined;
  const ok = terms.some(
    (t) => (t.matchExpressions?.length ?? 0) > 0 && t.matchExpressions!.every((e) => matchesExpression(labels, e)),
  );
  return ok ? undefined : 'did not match required node affinity';
}

/** Node affinity and nodeSelector against a target: labels for nodes, requirement intersection for planned claims. */
export function nodeRequirementsFit(pod: Pod, target: PlacementTarget): string | undefined {
  if (target.requirements) {
    const problems = podRequirementAlternatives(pod).map((alt) => intersectionProblem(target.requirements!, alt));
    if (problems.length === 0) return 'did not match required node affinity';
    return problems.some((p) => p === undefined) ? undefined : problems[0];
  }
  return nodeSelectorFits(pod, target.labels) ?? nodeAffinityFits(pod, target.labels);
}

/** `v1.Toleration.ToleratesTaint`. */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (t.operator === 'Exists') return true;
  return (t.value ?? '') === (taint.value ?? '');
}

export const formatTaint = (t: Taint): string => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;

/**
 * NoSchedule and NoExecute taints must be tolerated (PreferNoSchedule never filters). The
 * `karpenter.sh/disrupted:NoSchedule` taint marks a node being disrupted: it takes no new pods
 * even from pods that tolerate it.
 */
export function taintsTolerated(pod: Pod, taints: readonly Taint[]): string | undefined {
  for (const taint of taints) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (taint.key === TAINT_DISRUPTED && taint.effect === 'NoSchedule')
      return `node is being disrupted (taint ${formatTaint(taint)})`;
    if (!(pod.spec.tolerations ?? []).some((t) => tolerates(t, taint)))
      return `did not tolerate taint ${formatTaint(taint)}`;
  }
  return undefined;
}

/** The node-local checks in the scheduler's order; the first failure. */
export function nodeLocalFit(pod: Pod, target: PlacementTarget): string | undefined {
  return taintsTolerated(pod, target.taints) ?? nodeRequirementsFit(pod, target) ?? resourcesFit(pod, target);
}
