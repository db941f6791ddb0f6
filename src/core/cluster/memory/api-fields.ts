// SPDX-License-Identifier: Apache-2.0
// Fields the API server and the built-in controllers write that src/core/cluster/types.ts does not
// type (it only types what the evaluator reads), and the ReplicaSet shape.
import type { Condition, KubeObject, ObjectMeta, Pod, PodDisruptionBudget } from '../types.js';

export type ServerObjectMeta = ObjectMeta & { deletionGracePeriodSeconds?: number };

export const metaOf = (obj: KubeObject): ServerObjectMeta => obj.metadata as ServerObjectMeta;

/** policy/v1 PodDisruptionBudgetStatus; disruptedPods maps pod name → RFC 3339 eviction time. */
export interface PdbStatus {
  observedGeneration?: number;
  disruptedPods?: Record<string, string>;
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  expectedPods?: number;
  conditions?: Condition[];
}

export const pdbStatusOf = (pdb: PodDisruptionBudget): PdbStatus => (pdb.status ?? {}) as PdbStatus;

/** apps/v1 ReplicaSet, only the fields the ReplicaSet and disruption controllers use. */
export interface ReplicaSet extends KubeObject {
  kind: 'ReplicaSet';
  spec: {
    replicas?: number; // default 1
    selector?: {
      matchLabels?: Record<string, string>;
      matchExpressions?: { key: string; operator: string; values?: string[] }[];
    };
    template?: {
      metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
      spec?: Pod['spec'];
    };
  };
  status?: { replicas?: number; readyReplicas?: number; observedGeneration?: number };
}
