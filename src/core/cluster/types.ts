// SPDX-License-Identifier: Apache-2.0
// The Kubernetes object shapes kpol reads, exactly as `kubectl get -o json` prints them
// (only the fields kpol uses are typed; everything else is kept untouched).

export type {
  ObjectMeta,
  OwnerReference,
  Condition,
  KubeObject,
  NodeSelectorRequirement,
  Taint,
  Toleration,
  KarpenterBudget,
  NodeClaimTemplateSpec,
  NodePool,
} from '../../../rules/nodepool-types.js';
import type { Condition, KubeObject, NodeClaimTemplateSpec, Taint, Toleration } from '../../../rules/nodepool-types.js';

export interface NodeClaim extends KubeObject {
  kind: 'NodeClaim';
  spec: NodeClaimTemplateSpec & {
    resources?: { requests?: Record<string, string> };
  };
  status?: {
    providerID?: string;
    nodeName?: string;
    capacity?: Record<string, string>;
    allocatable?: Record<string, string>;
    conditions?: Condition[];
    lastPodEventTime?: string;
  };
}

export interface Node extends KubeObject {
  kind: 'Node';
  spec: { providerID?: string; taints?: Taint[]; unschedulable?: boolean };
  status?: {
    capacity?: Record<string, string>;
    allocatable?: Record<string, string>;
    conditions?: Condition[];
  };
}

export interface Container {
  name: string;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

export interface Pod extends KubeObject {
  kind: 'Pod';
  spec: {
    nodeName?: string;
    priority?: number;
    priorityClassName?: string;
    terminationGracePeriodSeconds?: number;
    tolerations?: Toleration[];
    nodeSelector?: Record<string, string>;
    affinity?: unknown;
    topologySpreadConstraints?: unknown[];
    containers?: Container[];
    initContainers?: Container[];
    overhead?: Record<string, string>;
  };
  status?: {
    phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown' | string;
    startTime?: string;
    conditions?: Condition[];
  };
}

export interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface PodDisruptionBudget extends KubeObject {
  kind: 'PodDisruptionBudget';
  spec: {
    selector?: LabelSelectorSpec;
    minAvailable?: number | string;
    maxUnavailable?: number | string;
    unhealthyPodEvictionPolicy?: 'IfHealthyBudget' | 'AlwaysAllow';
  };
  status?: {
    disruptionsAllowed?: number;
    currentHealthy?: number;
    desiredHealthy?: number;
    expectedPods?: number;
  };
}

export interface ConfigMap extends KubeObject {
  kind: 'ConfigMap';
  data?: Record<string, string>;
}

/** Well-known names kpol reads and writes, spelled as Karpenter spells them. */
export const LABEL_NODEPOOL = 'karpenter.sh/nodepool';
export const LABEL_INITIALIZED = 'karpenter.sh/initialized';
export const LABEL_CAPACITY_TYPE = 'karpenter.sh/capacity-type';
export const LABEL_INSTANCE_TYPE = 'node.kubernetes.io/instance-type';
export const LABEL_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const ANNOTATION_DO_NOT_DISRUPT = 'karpenter.sh/do-not-disrupt';
export const ANNOTATION_DISRUPTION_SCHEDULE = 'karpenter.sh/disruption-schedule';
export const ANNOTATION_DISRUPTION_SCHEDULE_DURATION = 'karpenter.sh/disruption-schedule-duration';
export const ANNOTATION_NODEPOOL_HASH = 'karpenter.sh/nodepool-hash';
export const ANNOTATION_NODEPOOL_HASH_VERSION = 'karpenter.sh/nodepool-hash-version';
export const ANNOTATION_POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';
export const TAINT_DISRUPTED = 'karpenter.sh/disrupted';
export const FINALIZER_TERMINATION = 'karpenter.sh/termination';
/**
 * A pod's `spec.terminationGracePeriodSeconds` when it does not say: the API server writes this
 * default into every pod, so an absent value (a hand-written snapshot) means 30 s, never "none".
 */
export const DEFAULT_TERMINATION_GRACE_SECONDS = 30;
/** Label on ConfigMaps that carry .kpol policies. */
export const LABEL_POLICY_CONFIGMAP = 'kpol.dev/policy';
