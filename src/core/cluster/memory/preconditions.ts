// SPDX-License-Identifier: Apache-2.0
// Optimistic-concurrency preconditions on writes, deletes and evictions.
import type { Kind, Preconditions } from '../client.js';
import type { KubeObject } from '../types.js';
import { conflict, preconditionFailed } from './errors.js';

/** 409 when a uid or resourceVersion precondition does not hold for `current`. */
export function checkPreconditions(current: KubeObject, pre: Preconditions | undefined): void {
  if (pre?.uid !== undefined && pre.uid !== current.metadata.uid)
    throw preconditionFailed('UID', pre.uid, current.metadata.uid);
  if (pre?.resourceVersion !== undefined && pre.resourceVersion !== current.metadata.resourceVersion) {
    throw preconditionFailed('ResourceVersion', pre.resourceVersion, current.metadata.resourceVersion);
  }
}

/** 409 Conflict when a writer's copy is stale: the resourceVersion it read is no longer current. */
export function checkFresh(current: KubeObject, resourceVersion: string | undefined): void {
  if (resourceVersion !== undefined && resourceVersion !== '' && resourceVersion !== current.metadata.resourceVersion) {
    throw conflict(current.kind as Kind, current.metadata.name);
  }
}
