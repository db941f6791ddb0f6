// SPDX-License-Identifier: Apache-2.0
// CREATE, UPDATE and PATCH: the server owns uid, creationTimestamp, resourceVersion, generation
// and the deletion fields; callers own everything else (status included: this API has no
// status subresource). Every write gets the API server's defaults (defaults.ts). A write that
// changes nothing is a no-op, as in etcd.
import type { Kind, MergePatch, Preconditions } from '../client.js';
import type { KubeObject } from '../types.js';
import { metaOf } from './api-fields.js';
import { withServerDefaults } from './defaults.js';
import { copyUnfrozen, deepEqual } from './deep.js';
import { isFinished, removeObject } from './deletion.js';
import { alreadyExists, invalid, notFound } from './errors.js';
import { kindInfo, scopeNamespace } from './kinds.js';
import { applyMergePatch } from './merge-patch.js';
import { checkFresh, checkPreconditions } from './preconditions.js';
import type { ServerContext } from './store.js';
import { rfc3339 } from './timestamps.js';

/** A caller's object, copied, with kind checked and namespace scoped. */
export function adopt(obj: KubeObject): KubeObject {
  const info = kindInfo(obj.kind);
  // The object and its metadata are the server's to write; frozen parts below are kept, not copied.
  const copy = copyUnfrozen({ ...obj, metadata: { ...obj.metadata } });
  const kind = obj.kind as Kind;
  if (!copy.metadata?.name) throw invalid(kind, '', 'metadata.name: Required value: name is required');
  copy.apiVersion ||= info.apiVersion;
  const namespace = scopeNamespace(kind, copy.metadata.namespace);
  if (namespace === undefined) delete copy.metadata.namespace;
  else copy.metadata.namespace = namespace;
  dropEmptyFinalizers(copy);
  return copy;
}

const dropEmptyFinalizers = (obj: KubeObject): void => {
  if (obj.metadata.finalizers?.length === 0) delete obj.metadata.finalizers;
};

export function createObject(ctx: ServerContext, input: KubeObject): KubeObject {
  const obj = withServerDefaults(adopt(input), undefined);
  const kind = obj.kind as Kind;
  if (obj.metadata.resourceVersion)
    throw invalid(kind, obj.metadata.name, 'metadata.resourceVersion: Invalid value: must be empty on create');
  if (ctx.store.get(kind, obj.metadata.name, obj.metadata.namespace)) throw alreadyExists(kind, obj.metadata.name);
  const meta = metaOf(obj);
  meta.uid = ctx.store.nextUid();
  meta.creationTimestamp = rfc3339(ctx.clock.now());
  meta.generation = 1;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  return ctx.store.put(obj, 'ADDED');
}

export function updateObject(ctx: ServerContext, input: KubeObject): KubeObject {
  const next = adopt(input);
  const current = ctx.store.get(next.kind as Kind, next.metadata.name, next.metadata.namespace);
  if (!current) throw notFound(next.kind as Kind, next.metadata.name);
  checkFresh(current, next.metadata.resourceVersion);
  if (next.metadata.uid !== undefined) checkPreconditions(current, { uid: next.metadata.uid });
  return commit(ctx, current, next);
}

export function patchObject(
  ctx: ServerContext,
  current: KubeObject,
  patch: MergePatch,
  pre: Preconditions | undefined,
): KubeObject {
  checkPreconditions(current, pre);
  const patchedVersion = (patch.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
  if (typeof patchedVersion === 'string') checkFresh(current, patchedVersion);
  const patched = applyMergePatch(current, patch);
  // The patch shares untouched parts with the frozen stored object; commit rewrites metadata.
  const next = { ...patched, metadata: { ...patched.metadata } };
  const kind = current.kind as Kind;
  if (
    next.kind !== current.kind ||
    next.metadata?.name !== current.metadata.name ||
    next.metadata.namespace !== current.metadata.namespace
  ) {
    throw invalid(
      kind,
      current.metadata.name,
      'kind, metadata.name and metadata.namespace cannot be changed by a patch',
    );
  }
  dropEmptyFinalizers(next);
  return commit(ctx, current, next);
}

/**
 * Stores `next` over `current`, keeping the server-owned fields; generation counts spec
 * changes. Removing the last finalizer of a deleting object (whose grace is over) removes it.
 */
function commit(ctx: ServerContext, current: KubeObject, input: KubeObject): KubeObject {
  const kind = current.kind as Kind;
  const next = withServerDefaults(input, current);
  const cur = metaOf(current);
  const meta = metaOf(next);
  if (cur.deletionTimestamp !== undefined && (meta.finalizers ?? []).some((f) => !(cur.finalizers ?? []).includes(f))) {
    throw invalid(
      kind,
      cur.name,
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted',
    );
  }
  for (const field of [
    'uid',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'resourceVersion',
  ] as const) {
    if (cur[field] === undefined) delete meta[field];
    else (meta as unknown as Record<string, unknown>)[field] = cur[field];
  }
  meta.generation = (cur.generation ?? 1) + (deepEqual(current.spec, next.spec) ? 0 : 1);
  if (deepEqual(current, next)) return current;
  delete meta.resourceVersion;
  const stored = ctx.store.put(next, 'MODIFIED');
  if (isFinished(stored)) removeObject(ctx, stored);
  return stored;
}
