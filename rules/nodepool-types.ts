// SPDX-License-Identifier: Apache-2.0
// The Kubernetes shapes the language maps to and from (`kpol import`, `kpol export`): a
// Karpenter NodePool and the object parts it is made of, as `kubectl get -o json` prints them.
// Here, below src/, because the language needs them and imports nothing of the program;
// src/core/cluster/types.ts re-exports them beside the other kinds kpol reads.

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid?: string;
  controller?: boolean;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface NodeSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values?: string[];
  minValues?: number;
}

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' | string;
}

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface KarpenterBudget {
  nodes?: string;
  reasons?: string[];
  schedule?: string;
  duration?: string;
}

/** What a NodePool's template gives each NodeClaim (Karpenter's NodeClaimTemplateSpec). */
export interface NodeClaimTemplateSpec {
  requirements?: NodeSelectorRequirement[];
  taints?: Taint[];
  startupTaints?: Taint[];
  expireAfter?: string;
  terminationGracePeriod?: string;
  nodeClassRef?: { group?: string; kind?: string; name?: string };
}

export interface NodePool extends KubeObject {
  kind: 'NodePool';
  spec: {
    disruption?: {
      consolidationPolicy?: string;
      consolidateAfter?: string;
      budgets?: KarpenterBudget[];
    };
    template?: {
      metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
      spec?: NodeClaimTemplateSpec;
    };
    limits?: Record<string, string>;
    weight?: number;
    replicas?: number;
  };
  status?: Record<string, unknown>;
}
