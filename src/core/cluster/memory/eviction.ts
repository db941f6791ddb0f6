// SPDX-License-Identifier: Apache-2.0
// The Eviction subresource (pkg/registry/core/pod/storage/eviction.go): a DELETE guarded by the
// pod's PodDisruptionBudget, which it decrements and records in status.disruptedPods so the
// disruption controller does not count the pod as healthy while it goes away.
import type { Preconditions } from '../client.js';
import { matchesLabelSelector } from '../labels.js';
import { isPodReady } from '../state.js';
import type { Condition, Pod, PodDisruptionBudget } from '../types.js';
import { pdbStatusOf } from './api-fields.js';
import { setCondition } from './conditions.js';
import { deleteObject } from './deletion.js';
import { apiError, MULTIPLE_PDBS, notFound, PDB_VIOLATION } from './errors.js';
import { checkPreconditions } from './preconditions.js';
import type { ServerContext } from './store.js';
import { rfc3339 } from './timestamps.js';

export function evictPod(ctx: ServerContext, namespace: string, name: string, pre: Preconditions | undefined): void {
  const pod = ctx.store.get('Pod', name, namespace) as Pod | undefined;
  if (!pod) throw notFound('Pod', name);
  checkPreconditions(pod, pre);
  if (!canIgnorePdb(pod)) guardWithPdb(ctx, pod);
  markDisruptionTarget(ctx, pod);
  const current = ctx.store.get('Pod', name, namespace)!;
  deleteObject(ctx, current, { preconditions: { uid: pod.metadata.uid } });
}

/** Pods that are already gone as far as availability goes: terminal, pending or terminating. */
function canIgnorePdb(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return (
    phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || pod.metadata.deletionTimestamp !== undefined
  );
}

/** pkg/registry/core/pod/storage/eviction.go MaxDisruptedPodSize. */
export const MAX_DISRUPTED_PODS = 2000;

const forbidden = (pdb: PodDisruptionBudget, why: string) =>
  apiError(403, 'Forbidden', `poddisruptionbudgets.policy "${pdb.metadata.name}" is forbidden: ${why}`);

/**
 * Throws when the pod's PDB forbids the eviction (the checks and order of the API server's
 * checkAndDecrement); otherwise spends one disruption if it must.
 */
function guardWithPdb(ctx: ServerContext, pod: Pod): void {
  const pdbs = (ctx.store.list('PodDisruptionBudget', pod.metadata.namespace) as PodDisruptionBudget[]).filter((pdb) =>
    matchesLabelSelector(pod.metadata.labels, pdb.spec.selector),
  );
  if (pdbs.length === 0) return;
  if (pdbs.length > 1) throw apiError(500, 'InternalError', MULTIPLE_PDBS);
  const pdb = pdbs[0];
  const status = pdbStatusOf(pdb);
  if (!isPodReady(pod)) {
    // An unready pod is not part of the healthy count, so evicting it spends nothing when the
    // policy says so, or (IfHealthyBudget, the default) when the budget is currently met.
    if (pdb.spec.unhealthyPodEvictionPolicy === 'AlwaysAllow') return;
    const desired = status.desiredHealthy ?? 0;
    if ((status.currentHealthy ?? 0) >= desired && desired > 0) return;
  }
  // A status computed for an older spec is stale. A status without observedGeneration (a
  // fixture or snapshot that never saw the disruption controller) is taken as it stands.
  const stale = status.observedGeneration !== undefined && status.observedGeneration < (pdb.metadata.generation ?? 1);
  const allowed = status.disruptionsAllowed ?? 0;
  if (stale) throw apiError(429, 'TooManyRequests', PDB_VIOLATION);
  if (allowed < 0) throw forbidden(pdb, 'pdb disruptions allowed is negative');
  // Evictions the disruption controller has not yet seen through are refused past this many
  // (MaxDisruptedPodSize): the map would grow without bound while a whole pool drains.
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS)
    throw forbidden(pdb, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  if (allowed === 0) throw apiError(429, 'TooManyRequests', PDB_VIOLATION);
  const now = ctx.clock.now();
  const disruptionsAllowed = allowed - 1;
  ctx.store.put(
    {
      ...pdb,
      status: {
        ...status,
        disruptionsAllowed,
        // Frozen here, so the store's copy and freeze take it as it is: a drain of a whole node
        // pool records hundreds of evictions per budget between two passes of its controller, so
        // each eviction's copy of the growing map is already long; the store copied and walked it
        // twice more.
        disruptedPods: Object.freeze({ ...status.disruptedPods, [pod.metadata.name]: rfc3339(now) }),
        conditions:
          disruptionsAllowed === 0 ? setCondition(status.conditions, insufficientPods(now)) : status.conditions,
      },
    },
    'MODIFIED',
  );
}

const insufficientPods = (now: number): Condition => ({
  type: 'DisruptionAllowed',
  status: 'False',
  reason: 'InsufficientPods',
  message: '',
  lastTransitionTime: rfc3339(now),
});

/** The DisruptionTarget condition the eviction API adds before deleting (PodDisruptionConditions). */
function markDisruptionTarget(ctx: ServerContext, pod: Pod): void {
  if (pod.status?.conditions?.some((c) => c.type === 'DisruptionTarget' && c.status === 'True')) return;
  const target: Condition = {
    type: 'DisruptionTarget',
    status: 'True',
    reason: 'EvictionByEvictionAPI',
    message: 'Eviction API: evicting',
    lastTransitionTime: rfc3339(ctx.clock.now()),
  };
  const conditions = [...(pod.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget'), target];
  ctx.store.put({ ...pod, status: { ...pod.status, conditions } }, 'MODIFIED');
}
