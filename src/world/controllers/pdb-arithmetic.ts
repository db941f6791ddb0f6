// SPDX-License-Identifier: Apache-2.0
// What kube-controller-manager's disruption controller computes for one PDB (pkg/controller/
// disruption/disruption.go, trySync): expected pods, healthy pods, desired healthy, allowed
// disruptions and the still-pending evictions. Pure: pods, owners and time are passed in.
import { matchesLabelSelector } from '../../core/cluster/labels.js';
import type { PdbStatus, ReplicaSet } from '../../core/cluster/memory/api-fields.js';
import { pdbStatusOf } from '../../core/cluster/memory/api-fields.js';
import { setCondition } from '../../core/cluster/memory/conditions.js';
import { parseTime, rfc3339 } from '../../core/cluster/memory/timestamps.js';
import { isPodReady } from '../../core/cluster/state.js';
import type { Condition, OwnerReference, Pod, PodDisruptionBudget } from '../../core/cluster/types.js';

/** How long an eviction recorded in status.disruptedPods keeps the pod out of the healthy count. */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;

/** The PDB's new status; on a spec error, the fail-safe status (no disruptions) with the reason. */
export function computePdbStatus(
  pdb: PodDisruptionBudget,
  namespacePods: readonly Pod[],
  replicaSets: readonly ReplicaSet[],
  nowMs: number,
): PdbStatus {
  const old = pdbStatusOf(pdb);
  const pods = namespacePods.filter((p) => selects(pdb.spec.selector, p.metadata.labels));
  let expected: number;
  let desired: number;
  try {
    ({ expected, desired } = expectedAndDesired(pdb, pods, replicaSets));
  } catch (e) {
    return {
      ...old,
      disruptionsAllowed: 0,
      conditions: setCondition(old.conditions, allowedCondition(false, 'SyncFailed', (e as Error).message, nowMs)),
    };
  }
  const disruptedPods = pendingDisruptions(old.disruptedPods, pods, nowMs);
  const healthy = pods.filter((p) => {
    if (p.metadata.deletionTimestamp !== undefined || !isPodReady(p)) return false;
    const evictedAt = parseTime(disruptedPods[p.metadata.name]);
    return evictedAt === undefined || evictedAt + DELETION_TIMEOUT_MS <= nowMs;
  }).length;
  const allowed = expected <= 0 ? 0 : Math.max(0, healthy - desired);
  const status: PdbStatus = {
    observedGeneration: pdb.metadata.generation ?? 1,
    disruptionsAllowed: allowed,
    currentHealthy: healthy,
    desiredHealthy: desired,
    expectedPods: expected,
    conditions: setCondition(
      old.conditions,
      allowed > 0
        ? allowedCondition(true, 'SufficientPods', '', nowMs)
        : allowedCondition(false, 'InsufficientPods', '', nowMs),
    ),
  };
  if (Object.keys(disruptedPods).length > 0) status.disruptedPods = disruptedPods;
  return status;
}

/**
 * Selector → label set → whether it matches, for frozen ones only (the store deep-freezes what it
 * holds: they never change). The store shares equal label sets, so a namespace of 1,000 pods has a
 * few dozen: a PDB recomputed on every busy tick asks each pair once, not once per pod per pass.
 */
const matchMemo = new WeakMap<object, WeakMap<object, boolean>>();

function selects(selector: PodDisruptionBudget['spec']['selector'], labels: Pod['metadata']['labels']): boolean {
  if (!selector || !labels || !Object.isFrozen(selector) || !Object.isFrozen(labels))
    return matchesLabelSelector(labels, selector);
  let bySelector = matchMemo.get(selector);
  if (bySelector === undefined) matchMemo.set(selector, (bySelector = new WeakMap()));
  let m = bySelector.get(labels);
  if (m === undefined) bySelector.set(labels, (m = matchesLabelSelector(labels, selector)));
  return m;
}

function expectedAndDesired(
  pdb: PodDisruptionBudget,
  pods: readonly Pod[],
  replicaSets: readonly ReplicaSet[],
): { expected: number; desired: number } {
  const { maxUnavailable, minAvailable } = pdb.spec;
  if (maxUnavailable !== undefined) {
    const expected = expectedScale(pods, replicaSets);
    return { expected, desired: Math.max(0, expected - scaledValue(maxUnavailable, expected)) };
  }
  if (typeof minAvailable === 'number') return { expected: pods.length, desired: minAvailable };
  if (minAvailable !== undefined) {
    const expected = expectedScale(pods, replicaSets);
    return { expected, desired: scaledValue(minAvailable, expected) };
  }
  return { expected: 0, desired: 0 };
}

/** intstr.GetScaledValueFromIntOrPercent(v, total, roundUp = true). */
export function scaledValue(value: number | string, total: number): number {
  if (typeof value === 'number') return value;
  const m = /^(-?\d+)%$/.exec(value);
  if (!m) throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
  return Math.ceil((Number(m[1]) * total) / 100);
}

const controllerOf = (pod: Pod): OwnerReference | undefined =>
  pod.metadata.ownerReferences?.find((r) => r.controller === true);

/**
 * The sum of the matched pods' controllers' scales. A ReplicaSet's scale is spec.replicas; a
 * controller this cluster does not hold (a StatefulSet, or an absent owner) is taken to want
 * as many pods as it has matched here. Pods without a controller are not expected.
 */
function expectedScale(pods: readonly Pod[], replicaSets: readonly ReplicaSet[]): number {
  const scales = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const pod of pods) {
    const ref = controllerOf(pod);
    if (!ref) continue;
    const key = ref.uid ?? `${ref.kind}/${ref.name}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (scales.has(key) || ref.kind !== 'ReplicaSet') continue;
    const rs = replicaSets.find(
      (r) => r.metadata.name === ref.name && (ref.uid === undefined || r.metadata.uid === ref.uid),
    );
    if (rs) scales.set(key, rs.spec.replicas ?? 1);
  }
  let expected = 0;
  for (const [key, count] of counts) expected += scales.get(key) ?? count;
  return expected;
}

/** buildDisruptedPodMap: evictions younger than the timeout of pods that exist and are not terminating. */
function pendingDisruptions(
  recorded: Record<string, string> | undefined,
  pods: readonly Pod[],
  nowMs: number,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!recorded) return out;
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp !== undefined) continue;
    const at = recorded[pod.metadata.name];
    const atMs = parseTime(at);
    if (at === undefined || atMs === undefined) continue;
    if (atMs + DELETION_TIMEOUT_MS >= nowMs) out[pod.metadata.name] = at;
  }
  return out;
}

const allowedCondition = (allowed: boolean, reason: string, message: string, nowMs: number): Condition => ({
  type: 'DisruptionAllowed',
  status: allowed ? 'True' : 'False',
  reason,
  message,
  lastTransitionTime: rfc3339(nowMs),
});
