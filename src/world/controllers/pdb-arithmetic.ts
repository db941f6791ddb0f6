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
  /** The namespace's pods (or any that include all the budget selects), in list order. */
  namespacePods: readonly Pod[],
  replicaSets: readonly ReplicaSet[],
  nowMs: number,
): PdbStatus {
  const pods = namespacePods.filter((p) => selects(pdb.spec.selector, p.metadata.labels));
  const tally = emptyTally();
  for (const pod of pods) countPod(tally, pod, 1);
  let byName: Map<string, Pod> | undefined;
  return statusOf(
    pdb,
    { tally, named: (n) => (byName ??= new Map(pods.map((p) => [p.metadata.name, p]))).get(n), inOrder: () => pods },
    replicaSets,
    nowMs,
  );
}

/**
 * What the status needs of the pods a budget selects: how many, how many count as healthy before
 * recorded evictions, and how many each controller has. Kept up to date pod by pod (pdb-members.ts)
 * it gives a budget's status without reading its pods.
 */
export interface PodTally {
  pods: number;
  /** Not terminating and Ready. */
  ready: number;
  /** Controller key (its uid, else kind/name) → its pods, by the kind/name their references give. */
  controllers: Map<string, Map<string, { ref: OwnerReference; pods: number }>>;
}

export const emptyTally = (): PodTally => ({ pods: 0, ready: 0, controllers: new Map() });

/** Adds (`sign` 1) or takes away (-1) one selected pod. */
export function countPod(tally: PodTally, pod: Pod, sign: 1 | -1): void {
  tally.pods += sign;
  if (pod.metadata.deletionTimestamp === undefined && isPodReady(pod)) tally.ready += sign;
  const ref = controllerOf(pod);
  if (!ref) return;
  const key = ref.uid ?? `${ref.kind}/${ref.name}`;
  let refs = tally.controllers.get(key);
  if (refs === undefined) tally.controllers.set(key, (refs = new Map()));
  const named = `${ref.kind}/${ref.name}`;
  const r = refs.get(named);
  if (r === undefined) refs.set(named, { ref, pods: sign });
  else if ((r.pods += sign) === 0) refs.delete(named);
  if (refs.size === 0) tally.controllers.delete(key);
}

/** The pods a budget selects, as its status reads them. */
export interface SelectedPods {
  tally: PodTally;
  /** The selected pod of that name. */
  named(name: string): Pod | undefined;
  /** Every selected pod in list order: read only when one controller key has references of two names. */
  inOrder(): readonly Pod[];
}

/** computePdbStatus from the budget's tallied pods. */
export function statusOf(
  pdb: PodDisruptionBudget,
  selected: SelectedPods,
  replicaSets: readonly ReplicaSet[],
  nowMs: number,
): PdbStatus {
  const old = pdbStatusOf(pdb);
  let expected: number;
  let desired: number;
  try {
    ({ expected, desired } = expectedAndDesired(pdb, selected, replicaSets));
  } catch (e) {
    return {
      ...old,
      disruptionsAllowed: 0,
      conditions: setCondition(old.conditions, allowedCondition(false, 'SyncFailed', (e as Error).message, nowMs)),
    };
  }
  const disruptedPods = pendingDisruptions(old.disruptedPods, selected, nowMs);
  // Ready pods whose eviction is recorded and younger than the timeout are not healthy yet.
  let healthy = selected.tally.ready;
  for (const [name, at] of Object.entries(disruptedPods)) {
    const pod = selected.named(name);
    if (pod !== undefined && isPodReady(pod) && (parseTime(at) as number) + DELETION_TIMEOUT_MS > nowMs) healthy--;
  }
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

export function selects(selector: PodDisruptionBudget['spec']['selector'], labels: Pod['metadata']['labels']): boolean {
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
  selected: SelectedPods,
  replicaSets: readonly ReplicaSet[],
): { expected: number; desired: number } {
  const { maxUnavailable, minAvailable } = pdb.spec;
  if (maxUnavailable !== undefined) {
    const expected = expectedScale(selected, replicaSets);
    return { expected, desired: Math.max(0, expected - scaledValue(maxUnavailable, expected)) };
  }
  if (typeof minAvailable === 'number') return { expected: selected.tally.pods, desired: minAvailable };
  if (minAvailable !== undefined) {
    const expected = expectedScale(selected, replicaSets);
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
function expectedScale(selected: SelectedPods, replicaSets: readonly ReplicaSet[]): number {
  let expected = 0;
  for (const [key, refs] of selected.tally.controllers) {
    let count = 0;
    for (const r of refs.values()) count += r.pods;
    // One name for the key (always, but for a uid two owners share): its ReplicaSet, if any.
    // Else the first pod in list order whose reference finds one decides, as upstream's loop does.
    const scale =
      refs.size === 1
        ? scaleOf([...refs.values()][0].ref, replicaSets)
        : firstScale(key, selected.inOrder(), replicaSets);
    expected += scale ?? count;
  }
  return expected;
}

function scaleOf(ref: OwnerReference, replicaSets: readonly ReplicaSet[]): number | undefined {
  if (ref.kind !== 'ReplicaSet') return undefined;
  const rs = replicaSets.find(
    (r) => r.metadata.name === ref.name && (ref.uid === undefined || r.metadata.uid === ref.uid),
  );
  return rs ? (rs.spec.replicas ?? 1) : undefined;
}

function firstScale(key: string, pods: readonly Pod[], replicaSets: readonly ReplicaSet[]): number | undefined {
  for (const pod of pods) {
    const ref = controllerOf(pod);
    if (!ref || (ref.uid ?? `${ref.kind}/${ref.name}`) !== key) continue;
    const scale = scaleOf(ref, replicaSets);
    if (scale !== undefined) return scale;
  }
  return undefined;
}

/** buildDisruptedPodMap: evictions younger than the timeout of pods that exist and are not terminating. */
function pendingDisruptions(
  recorded: Record<string, string> | undefined,
  selected: SelectedPods,
  nowMs: number,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!recorded) return out;
  const names: string[] = [];
  for (const [name, at] of Object.entries(recorded)) {
    const pod = selected.named(name);
    if (pod === undefined || pod.metadata.deletionTimestamp !== undefined) continue;
    const atMs = parseTime(at);
    if (atMs !== undefined && atMs + DELETION_TIMEOUT_MS >= nowMs) names.push(name);
  }
  // In name order (a list's), whatever order the record holds.
  for (const name of names.sort(byName)) out[name] = recorded[name];
  return out;
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const allowedCondition = (allowed: boolean, reason: string, message: string, nowMs: number): Condition => ({
  type: 'DisruptionAllowed',
  status: allowed ? 'True' : 'False',
  reason,
  message,
  lastTransitionTime: rfc3339(nowMs),
});
