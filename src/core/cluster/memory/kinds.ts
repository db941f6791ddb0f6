// SPDX-License-Identifier: Apache-2.0
// The kinds the in-memory API server stores, with their scope and REST resource name (the name
// the real API server uses in error messages, e.g. `pods "web-1" not found`).
import { ApiError, type Kind } from '../client.js';

export interface KindInfo {
  apiVersion: string;
  namespaced: boolean;
  resource: string;
}

export const KINDS: Readonly<Record<Kind, KindInfo>> = {
  NodePool: { apiVersion: 'karpenter.sh/v1', namespaced: false, resource: 'nodepools.karpenter.sh' },
  NodeClaim: { apiVersion: 'karpenter.sh/v1', namespaced: false, resource: 'nodeclaims.karpenter.sh' },
  Node: { apiVersion: 'v1', namespaced: false, resource: 'nodes' },
  Pod: { apiVersion: 'v1', namespaced: true, resource: 'pods' },
  PodDisruptionBudget: { apiVersion: 'policy/v1', namespaced: true, resource: 'poddisruptionbudgets.policy' },
  ConfigMap: { apiVersion: 'v1', namespaced: true, resource: 'configmaps' },
  ReplicaSet: { apiVersion: 'apps/v1', namespaced: true, resource: 'replicasets.apps' },
  Event: { apiVersion: 'v1', namespaced: true, resource: 'events' },
  Lease: { apiVersion: 'coordination.k8s.io/v1', namespaced: true, resource: 'leases.coordination.k8s.io' },
};

export const KIND_NAMES = Object.keys(KINDS) as Kind[];

export const isKind = (kind: string): kind is Kind => Object.prototype.hasOwnProperty.call(KINDS, kind);

/** The kind's description; an unknown kind is a 404 as for an unregistered resource. */
export function kindInfo(kind: string): KindInfo {
  if (!isKind(kind))
    throw new ApiError(404, 'NotFound', `the server could not find the requested resource (kind ${kind})`);
  return KINDS[kind];
}

/** Namespaced kinds default to "default"; cluster-scoped kinds have no namespace at all. */
export function scopeNamespace(kind: Kind, namespace: string | undefined): string | undefined {
  return KINDS[kind].namespaced ? namespace || 'default' : undefined;
}
