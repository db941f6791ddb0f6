// SPDX-License-Identifier: Apache-2.0
// The shape of every field kpol reads, per kind, as data for shape-check.ts. It mirrors
// types.ts and the untyped readers (scheduling/pod-spec.ts); a field added to those must be
// added here, or a snapshot could carry a value kpol's code cannot handle — and the informers'
// caches drop every Pod and Node field not declared here (lean.ts), so a read of one would find
// nothing on a real cluster (test/reconciler/projection.test.ts). Types follow the
// Kubernetes and Karpenter v1 APIs, so anything a real API server stores passes.
import type { Fields, Shape } from './shape-check.js';

const str = 'string';
const strings: Shape = { list: str };
const stringMap: Shape = { map: str };
const resourceList: Shape = { map: 'quantity' };

const ownerReference: Shape = { fields: { apiVersion: str, kind: str, name: str, uid: str, controller: 'boolean' } };

export const METADATA: Shape = {
  fields: {
    'name!': str,
    namespace: str,
    uid: str,
    resourceVersion: str,
    generation: 'integer',
    creationTimestamp: 'time',
    deletionTimestamp: 'time',
    // A deletion's grace period: which request set deletionTimestamp (a shorter second delete
    // moves both); the scenario harness translates the timestamp by it (scenario-timeline.ts).
    deletionGracePeriodSeconds: 'integer',
    labels: stringMap,
    annotations: stringMap,
    finalizers: strings,
    ownerReferences: { list: ownerReference },
  },
};

const condition: Shape = {
  fields: { 'type!': str, 'status!': str, reason: str, message: str, lastTransitionTime: 'time' },
};
const conditions: Shape = { list: condition };

/** Node selector operators (core/v1 NodeSelectorOperator). */
const requirement: Shape = {
  fields: {
    'key!': str,
    'operator!': { enum: ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'] },
    values: strings,
    minValues: 'integer',
  },
};
const requirements: Shape = { list: requirement };
// timeAdded is not read, but kpol patches a Node's whole taint list from its informer's lean copy (lean.ts).
const taint: Shape = { fields: { 'key!': str, value: str, 'effect!': str, timeAdded: 'time' } };
const toleration: Shape = {
  fields: {
    key: str,
    operator: { enum: ['Exists', 'Equal', ''] },
    value: str,
    effect: str,
    tolerationSeconds: 'integer',
  },
};

/** Label selector operators (meta/v1 LabelSelectorOperator). */
const labelSelector: Shape = {
  fields: {
    matchLabels: stringMap,
    matchExpressions: {
      list: {
        fields: { 'key!': str, 'operator!': { enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] }, values: strings },
      },
    },
  },
};

const claimTemplateFields: Fields = {
  requirements,
  taints: { list: taint },
  startupTaints: { list: taint },
  expireAfter: str,
  terminationGracePeriod: str,
  nodeClassRef: { fields: { group: str, kind: str, name: str } },
};

const container: Shape = {
  fields: { name: str, resources: { fields: { requests: resourceList, limits: resourceList } } },
};
const podAffinityTerm: Shape = {
  fields: { labelSelector, namespaces: strings, namespaceSelector: labelSelector, topologyKey: str },
};
const podAffinity: Shape = { fields: { requiredDuringSchedulingIgnoredDuringExecution: { list: podAffinityTerm } } };

const podSpec: Fields = {
  nodeName: str,
  priority: 'integer',
  priorityClassName: str,
  terminationGracePeriodSeconds: 'integer',
  tolerations: { list: toleration },
  nodeSelector: stringMap,
  affinity: {
    fields: {
      nodeAffinity: {
        fields: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            fields: {
              nodeSelectorTerms: { list: { fields: { matchExpressions: requirements, matchFields: requirements } } },
            },
          },
        },
      },
      podAffinity,
      podAntiAffinity: podAffinity,
    },
  },
  topologySpreadConstraints: {
    list: {
      fields: { maxSkew: 'integer', topologyKey: str, whenUnsatisfiable: str, labelSelector, minDomains: 'integer' },
    },
  },
  containers: { list: container },
  initContainers: { list: container },
  overhead: resourceList,
};

/** Per kind: the fields after `metadata` (metadata is METADATA for every kind). */
export const KIND_SHAPES: Readonly<Record<string, Fields>> = {
  NodePool: {
    spec: {
      fields: {
        disruption: {
          fields: {
            consolidationPolicy: str,
            consolidateAfter: str,
            budgets: { list: { fields: { nodes: str, reasons: strings, schedule: str, duration: str } } },
          },
        },
        template: {
          fields: {
            metadata: { fields: { labels: stringMap, annotations: stringMap } },
            spec: { fields: claimTemplateFields },
          },
        },
        limits: resourceList,
        weight: 'integer',
        replicas: 'integer',
      },
    },
    status: { fields: { conditions } },
  },
  NodeClaim: {
    spec: { fields: { ...claimTemplateFields, resources: { fields: { requests: resourceList } } } },
    status: {
      fields: {
        providerID: str,
        nodeName: str,
        capacity: resourceList,
        allocatable: resourceList,
        conditions,
        lastPodEventTime: 'time',
      },
    },
  },
  Node: {
    spec: { fields: { providerID: str, taints: { list: taint }, unschedulable: 'boolean' } },
    status: { fields: { capacity: resourceList, allocatable: resourceList, conditions } },
  },
  Pod: {
    spec: { fields: podSpec },
    status: { fields: { phase: str, startTime: 'time', conditions } },
  },
  PodDisruptionBudget: {
    spec: {
      fields: {
        selector: labelSelector,
        minAvailable: 'intOrString',
        maxUnavailable: 'intOrString',
        unhealthyPodEvictionPolicy: str,
      },
    },
    status: {
      fields: {
        disruptionsAllowed: 'integer',
        currentHealthy: 'integer',
        desiredHealthy: 'integer',
        expectedPods: 'integer',
      },
    },
  },
  ConfigMap: { data: stringMap },
};

/** ReplicaSets (apps/v1) are read only by simulations, which recreate their pods from the template. */
export const REPLICASET_SHAPE: Fields = {
  spec: {
    fields: {
      replicas: 'integer',
      selector: labelSelector,
      template: {
        fields: { metadata: { fields: { labels: stringMap, annotations: stringMap } }, spec: { fields: podSpec } },
      },
    },
  },
};
