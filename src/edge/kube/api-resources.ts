// SPDX-License-Identifier: Apache-2.0
// Where each kind kpol uses lives on a real API server: its group/version, REST resource,
// scope, and whether status is a separate subresource (writes to the main resource then drop
// status, so the adapter writes it through /status).
import { ApiError, type Kind } from '../../core/cluster/client.js';

export interface Resource {
  kind: Kind;
  apiVersion: string;
  plural: string;
  namespaced: boolean;
  /** Status is written through the /status subresource. */
  statusSubresource: boolean;
  /** Status sent with a create is kept (Node's strategy keeps it; Pods and CRDs drop it). */
  statusOnCreate: boolean;
}

const r = (
  kind: Kind,
  apiVersion: string,
  plural: string,
  namespaced: boolean,
  statusSubresource: boolean,
  statusOnCreate = false,
): Resource => ({ kind, apiVersion, plural, namespaced, statusSubresource, statusOnCreate });

export const RESOURCES: Readonly<Record<Kind, Resource>> = {
  NodePool: r('NodePool', 'karpenter.sh/v1', 'nodepools', false, true),
  NodeClaim: r('NodeClaim', 'karpenter.sh/v1', 'nodeclaims', false, true),
  Node: r('Node', 'v1', 'nodes', false, true, true),
  Pod: r('Pod', 'v1', 'pods', true, true),
  PodDisruptionBudget: r('PodDisruptionBudget', 'policy/v1', 'poddisruptionbudgets', true, true),
  ConfigMap: r('ConfigMap', 'v1', 'configmaps', true, false),
  ReplicaSet: r('ReplicaSet', 'apps/v1', 'replicasets', true, true),
  Event: r('Event', 'v1', 'events', true, false),
  Lease: r('Lease', 'coordination.k8s.io/v1', 'leases', true, false),
};

export const RESOURCE_KINDS = Object.keys(RESOURCES) as Kind[];

/** The kind's resource; an unknown kind is a 404, as for an unregistered resource. */
export function resourceOf(kind: string): Resource {
  if (!Object.prototype.hasOwnProperty.call(RESOURCES, kind)) {
    throw new ApiError(404, 'NotFound', `the server could not find the requested resource (kind ${kind})`);
  }
  return RESOURCES[kind as Kind];
}

/** Namespaced kinds default to "default", as the in-memory server does. */
export const namespaceFor = (res: Resource, namespace: string | undefined): string | undefined =>
  res.namespaced ? namespace || 'default' : undefined;

/**
 * The REST path of a collection (namespace undefined on a namespaced kind: every namespace),
 * an object, or one of its subresources.
 */
export function resourcePath(res: Resource, namespace?: string, name?: string, subresource?: string): string {
  const root = res.apiVersion.includes('/') ? `/apis/${res.apiVersion}` : `/api/${res.apiVersion}`;
  const ns = res.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const obj = name === undefined ? '' : `/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
  return `${root}${ns}/${res.plural}${obj}`;
}

/**
 * The object with its apiVersion and kind: list items and watch objects of built-in kinds come
 * without them, and kpol's model (like `kubectl get -o json`) always has both.
 */
export function typed<T>(obj: Record<string, unknown>, res: Resource): T {
  if (obj.kind === res.kind && obj.apiVersion === res.apiVersion) return obj as T;
  return { ...obj, apiVersion: res.apiVersion, kind: res.kind } as T;
}
