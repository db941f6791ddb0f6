// SPDX-License-Identifier: Apache-2.0
// The one interface the controller uses to read and change the cluster. Two implementations
// must agree on every behaviour below: the in-memory API server (src/core/cluster/memory/) and the
// Kubernetes adapter (issue 4). The semantics are the real API server's:
// - create: 409 AlreadyExists if the name is taken; server sets uid, resourceVersion,
//   creationTimestamp (from the injected clock) and defaults generation 1. Every write comes
//   back with the API server's defaults for the fields kpol reads (a pod's
//   terminationGracePeriodSeconds 30, priority, tolerations, phase Pending; a Node's
//   allocatable; the karpenter.sh CRDs' defaults; see src/core/cluster/memory/defaults.ts).
// - update/patch: if the caller passes a resourceVersion that is not current → 409 Conflict.
//   Every successful write bumps resourceVersion (a cluster-wide increasing counter, as a string).
// - delete: an object with finalizers gets deletionTimestamp (= now) and stays until its last
//   finalizer is removed by an update/patch; then it is gone. A Pod bound to a Node is deleted
//   gracefully: deletionTimestamp = now + grace (gracePeriodSeconds option, else
//   spec.terminationGracePeriodSeconds, else 30 s) and deletionGracePeriodSeconds set; the node
//   agent removes it once it has stopped (`delete` with gracePeriodSeconds 0 removes at once).
//   An unbound Pod is removed at once. Preconditions (uid/resourceVersion) mismatch → 409.
//   Deleting a missing object → 404. Owner-reference cascade: once an owner is gone, objects whose
//   every ownerReference points at missing owners are deleted (background propagation).
// - evict: the Eviction subresource. 404 if the pod is missing; 409 on a uid precondition
//   mismatch; a pod selected by more than one PDB → 500 with the API's message
//   `This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.`;
//   a PDB with status.disruptionsAllowed == 0 → 429 TooManyRequests
//   (`Cannot evict pod as it would violate the pod's disruption budget.`), unless the pod is not
//   Ready and the PDB's unhealthyPodEvictionPolicy is AlwaysAllow; 403 Forbidden while the PDB
//   allows fewer than zero or records more than 2,000 evictions its controller has not yet
//   confirmed (status.disruptedPods); otherwise the PDB's
//   disruptionsAllowed is decremented (status.disruptedPods records the pod) and the pod is
//   deleted gracefully as above. Terminal pods are evicted without consulting PDBs.
// - watch: events for every later change, in order, delivered asynchronously after the write
//   returns; `stop()` ends delivery. A MODIFIED event carries the object as it was before the
//   change (`old`) when the client holds it: the in-memory server always, the Kubernetes
//   adapter from its informer's cache.
// - Returned objects (from list, get, create, update, patch and watch events) are read-only
//   and may be shared with other callers: copy before modifying (spread the parts you change,
//   or structuredClone). The in-memory server returns its stored objects deeply frozen, so a
//   modification throws a TypeError; the Kubernetes adapter may return fresh objects, which
//   callers must treat the same way. Arrays returned by list belong to the caller.
import type { KubeObject } from './types.js';

export type Kind =
  'NodePool' | 'NodeClaim' | 'Node' | 'Pod' | 'PodDisruptionBudget' | 'ConfigMap' | 'ReplicaSet' | 'Event' | 'Lease';

export interface ObjectKey {
  kind: Kind;
  name: string;
  namespace?: string; // namespaced kinds only; default "default"
}

export type ApiReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'TooManyRequests'
  | 'Invalid'
  | 'InternalError'
  // Only a real API server (or the network to it) answers these.
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'Gone'
  | 'Expired'
  | 'ServiceUnavailable'
  | 'Timeout'
  | 'Unknown';

/** A failed API call, shaped like a Kubernetes Status: HTTP code, reason and message. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: ApiReason,
    message: string,
  ) {
    super(message);
  }
}

export const isApiError = (e: unknown, code?: number): e is ApiError =>
  e instanceof ApiError && (code === undefined || e.code === code);

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: Preconditions;
}

/** A JSON merge patch (RFC 7386): null deletes a key; arrays are replaced whole. */
export type MergePatch = Record<string, unknown>;

export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: T;
  /** MODIFIED: the object before this change, when the client holds it (what an informer's update handler is given). */
  old?: T;
}

export interface ClusterClient {
  list<T extends KubeObject>(kind: Kind, namespace?: string): Promise<T[]>;
  /** undefined when absent (not an error). */
  get<T extends KubeObject>(key: ObjectKey): Promise<T | undefined>;
  create<T extends KubeObject>(obj: T): Promise<T>;
  /** Replaces the object (status included); `obj.metadata.resourceVersion` is a precondition when set. */
  update<T extends KubeObject>(obj: T): Promise<T>;
  patch<T extends KubeObject>(key: ObjectKey, patch: MergePatch, preconditions?: Preconditions): Promise<T>;
  delete(key: ObjectKey, options?: DeleteOptions): Promise<void>;
  evict(namespace: string, name: string, preconditions?: Preconditions): Promise<void>;
  watch(kind: Kind, handler: (e: WatchEvent) => void): { stop(): void };
}
