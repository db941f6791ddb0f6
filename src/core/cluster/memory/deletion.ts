// SPDX-License-Identifier: Apache-2.0
// DELETE as the real API server does it (registry Store.Delete + rest.BeforeDelete + the pod
// strategy), plus owner-reference cascade, which lives here so there is exactly one place that
// removes objects from the store.
import type { DeleteOptions, Kind } from '../client.js';
import { DEFAULT_TERMINATION_GRACE_SECONDS, type KubeObject, type Pod } from '../types.js';
import { metaOf, type ServerObjectMeta } from './api-fields.js';
import { isKind, KINDS } from './kinds.js';
import { checkPreconditions } from './preconditions.js';
import type { ServerContext } from './store.js';
import { parseTime, rfc3339 } from './timestamps.js';

const hasFinalizers = (obj: KubeObject): boolean => (obj.metadata.finalizers?.length ?? 0) > 0;

/**
 * The grace period a DELETE gets: only a pod bound to a node and not terminal is deleted
 * gracefully (its kubelet must stop it first); everything else is 0. Negative means 1 s.
 */
function gracePeriod(obj: KubeObject, options: DeleteOptions | undefined): number {
  if (obj.kind !== 'Pod') return 0;
  const pod = obj as Pod;
  const phase = pod.status?.phase;
  if (!pod.spec?.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
  const period =
    options?.gracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? DEFAULT_TERMINATION_GRACE_SECONDS;
  return period < 0 ? 1 : period;
}

/** Deletes `current` (a stored object) with `options`; 409 when a precondition fails. */
export function deleteObject(ctx: ServerContext, current: KubeObject, options?: DeleteOptions): void {
  checkPreconditions(current, options?.preconditions);
  const meta = metaOf(current);
  if (meta.deletionTimestamp !== undefined) {
    shortenDeletion(ctx, current, options);
    return;
  }
  const grace = gracePeriod(current, options);
  if (grace === 0 && !hasFinalizers(current)) {
    removeObject(ctx, current);
    return;
  }
  const deleting: ServerObjectMeta = {
    ...meta,
    deletionTimestamp: rfc3339(ctx.clock.now() + grace * 1000),
    deletionGracePeriodSeconds: grace,
  };
  ctx.store.put({ ...current, metadata: deleting }, 'MODIFIED');
}

/**
 * A DELETE of an object already being deleted may only shorten a pending graceful deletion;
 * the new deadline counts from the original request (old deadline − old grace + new grace).
 */
function shortenDeletion(ctx: ServerContext, current: KubeObject, options: DeleteOptions | undefined): void {
  const meta = metaOf(current);
  const oldGrace = meta.deletionGracePeriodSeconds ?? 0;
  if (oldGrace === 0) {
    // Recovers an object whose grace already ran out but that was never removed.
    if (!hasFinalizers(current)) removeObject(ctx, current);
    return;
  }
  if (options?.gracePeriodSeconds === undefined) return;
  const grace = Math.max(options.gracePeriodSeconds, 0);
  if (grace >= oldGrace) return;
  const deadline = (parseTime(meta.deletionTimestamp) ?? ctx.clock.now()) - oldGrace * 1000 + grace * 1000;
  const shortened: ServerObjectMeta = {
    ...meta,
    deletionTimestamp: rfc3339(deadline),
    deletionGracePeriodSeconds: grace,
  };
  const next = { ...current, metadata: shortened };
  if (grace === 0 && !hasFinalizers(next)) removeObject(ctx, next);
  else ctx.store.put(next, 'MODIFIED');
}

/** Whether a deleting object may now leave the store (no finalizers, grace period over). */
export const isFinished = (obj: KubeObject): boolean =>
  obj.metadata.deletionTimestamp !== undefined &&
  !hasFinalizers(obj) &&
  (metaOf(obj).deletionGracePeriodSeconds ?? 0) === 0;

/** Removes `obj` from the store, then collects dependents it leaves without any owner. */
export function removeObject(ctx: ServerContext, obj: KubeObject): void {
  ctx.store.remove(obj);
  collectDependents(ctx, obj);
}

/**
 * Background propagation: a dependent of `owner` whose every ownerReference now points at a
 * missing owner is deleted (gracefully, for bound pods). References to kinds this server does
 * not store (DaemonSet, StatefulSet, …) count as present: it cannot know they are gone.
 */
function collectDependents(ctx: ServerContext, owner: KubeObject): void {
  const ownerScoped = isKind(owner.kind) && KINDS[owner.kind].namespaced;
  for (const dep of ctx.store.dependentsOf(owner.kind, owner.metadata.name)) {
    // An earlier dependent's deletion may have cascaded to this one already.
    const current = ctx.store.get(dep.kind as Kind, dep.metadata.name, dep.metadata.namespace);
    if (current !== dep || dep.metadata.deletionTimestamp !== undefined) continue;
    if (ownerScoped && dep.metadata.namespace !== owner.metadata.namespace) continue;
    const refs = dep.metadata.ownerReferences ?? [];
    if (
      !refs.some(
        (r) =>
          r.kind === owner.kind &&
          r.name === owner.metadata.name &&
          (r.uid === undefined || r.uid === owner.metadata.uid),
      )
    )
      continue;
    if (refs.every((r) => !ownerExists(ctx, dep, r))) deleteObject(ctx, dep);
  }
}

function ownerExists(
  ctx: ServerContext,
  dependent: KubeObject,
  ref: NonNullable<KubeObject['metadata']['ownerReferences']>[number],
): boolean {
  if (!isKind(ref.kind)) return true;
  const namespace = KINDS[ref.kind].namespaced ? dependent.metadata.namespace : undefined;
  const found = ctx.store.get(ref.kind, ref.name, namespace);
  return found !== undefined && (ref.uid === undefined || ref.uid === found.metadata.uid);
}
