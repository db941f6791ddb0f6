// SPDX-License-Identifier: Apache-2.0
// Objects that leave out what kube-apiserver fills in, for the fields kpol reads, with what a
// real server returns for those fields (measured on kube-apiserver v1.36.3 with kpol's shipped
// CRDs). defaults.test.ts holds the in-memory server to these values;
// test/k8s/adapter/defaults.test.ts creates each object on both servers and compares.
import type { KubeObject } from '../../../src/core/cluster/types.js';
import type { Harness } from './backends.js';

/** The image a real server requires on every container; kpol never reads it. */
const IMAGE = 'registry.k8s.io/pause:3.10';
/** No scheduler may bind these pods: the in-memory server has none. */
const SCHEDULER = 'kpol-conformance';

type Json = Record<string, any>;

export interface DefaultsCase {
  name: string;
  /**
   * Creates the object (and changes it, for the cases about writes); returns what the server last returned (or a list
   * of them).
   */
  run(h: Harness): Promise<KubeObject | KubeObject[]>;
  /** The fields kpol reads, as compared across servers. */
  fields(returned: any): unknown;
  expected: unknown;
}

const pod = (h: Harness, name: string, spec: Json = {}, status?: Json): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: h.ns },
  spec: { schedulerName: SCHEDULER, containers: [{ name: 'main', image: IMAGE }], ...spec },
  ...(status && { status }),
});

const resources = (c: Json) => ({ requests: c.resources?.requests, limits: c.resources?.limits });

/** What kpol reads of a pod (src/core/cluster/types.ts, Pod). */
const podFields = (p: Json) => ({
  terminationGracePeriodSeconds: p.spec.terminationGracePeriodSeconds,
  priority: p.spec.priority,
  priorityClassName: p.spec.priorityClassName,
  tolerations: p.spec.tolerations,
  containers: p.spec.containers?.map(resources),
  initContainers: p.spec.initContainers?.map(resources),
  phase: p.status?.phase,
});

const NOT_READY = {
  key: 'node.kubernetes.io/not-ready',
  operator: 'Exists',
  effect: 'NoExecute',
  tolerationSeconds: 300,
};
const UNREACHABLE = {
  key: 'node.kubernetes.io/unreachable',
  operator: 'Exists',
  effect: 'NoExecute',
  tolerationSeconds: 300,
};
const DEFAULT_TOLERATIONS = [NOT_READY, UNREACHABLE];

/** A bare pod as a test or a hand-written snapshot writes it. */
const BARE_POD = {
  terminationGracePeriodSeconds: 30,
  priority: 0,
  priorityClassName: undefined,
  tolerations: DEFAULT_TOLERATIONS,
  containers: [{ requests: undefined, limits: undefined }],
  initContainers: undefined,
  phase: 'Pending',
};

const NODE_CLASS = { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' };
const nodePool = (h: Harness, name: string, spec: Json = {}): KubeObject => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: `${h.prefix}${name}` },
  spec: { ...spec, template: { spec: { nodeClassRef: NODE_CLASS, requirements: [] } } },
});
const nodePoolFields = (np: Json) => ({
  disruption: np.spec.disruption,
  expireAfter: np.spec.template?.spec?.expireAfter,
});
const DEFAULT_DISRUPTION = {
  consolidateAfter: '0s',
  consolidationPolicy: 'WhenEmptyOrUnderutilized',
  budgets: [{ nodes: '10%' }],
};

const pdbFields = (p: Json) => ({
  spec: p.spec,
  status: p.status && {
    disruptionsAllowed: p.status.disruptionsAllowed,
    currentHealthy: p.status.currentHealthy,
    desiredHealthy: p.status.desiredHealthy,
    expectedPods: p.status.expectedPods,
  },
});
const ZERO_PDB_STATUS = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };

export const DEFAULTS_CASES: DefaultsCase[] = [
  {
    name: 'a bare pod: 30 s of grace, priority 0, the NoExecute tolerations for 300 s, Pending',
    run: (h) => h.client.create(pod(h, 'bare')),
    fields: podFields,
    expected: BARE_POD,
  },
  {
    name: 'a pod with limits only: requests default to the limits, per resource, in containers and init containers',
    run: (h) =>
      h.client.create(
        pod(h, 'limits', {
          containers: [
            {
              name: 'main',
              image: IMAGE,
              resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } },
            },
          ],
          initContainers: [{ name: 'init', image: IMAGE, resources: { limits: { cpu: '2' } } }],
        }),
      ),
    fields: podFields,
    expected: {
      ...BARE_POD,
      containers: [{ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } }],
      initContainers: [{ limits: { cpu: '2' }, requests: { cpu: '2' } }],
    },
  },
  {
    name: "a pod's own values are kept: grace 0, a not-ready toleration without seconds (only unreachable is added)",
    run: (h) =>
      h.client.create(
        pod(h, 'own', {
          terminationGracePeriodSeconds: 0,
          tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' }],
        }),
      ),
    fields: podFields,
    expected: {
      ...BARE_POD,
      terminationGracePeriodSeconds: 0,
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' }, UNREACHABLE],
    },
  },
  {
    name: 'a pod that tolerates everything gets no tolerations added',
    run: (h) => h.client.create(pod(h, 'tolerant', { tolerations: [{ operator: 'Exists' }] })),
    fields: podFields,
    expected: { ...BARE_POD, tolerations: [{ operator: 'Exists' }] },
  },
  {
    name: 'system-node-critical and system-cluster-critical pods get their classes’ priorities',
    async run(h) {
      const node = await h.client.create(pod(h, 'node-critical', { priorityClassName: 'system-node-critical' }));
      const cluster = await h.client.create(
        pod(h, 'cluster-critical', { priorityClassName: 'system-cluster-critical' }),
      );
      return [node, cluster];
    },
    fields: (pods: Json[]) => pods.map((p) => [p.spec.priorityClassName, p.spec.priority]),
    expected: [
      ['system-node-critical', 2_000_001_000],
      ['system-cluster-critical', 2_000_000_000],
    ],
  },
  {
    name: 'a pod created with status but no phase is Pending',
    run: (h) => h.client.create(pod(h, 'conditions', {}, { conditions: [{ type: 'Ready', status: 'False' }] })),
    fields: (p) => p.status?.phase,
    expected: 'Pending',
  },
  {
    name: "a patch that removes a pod's grace period or priority: defaulted again, and the priority kept",
    async run(h) {
      await h.client.create(pod(h, 'patched'));
      const key = { kind: 'Pod' as const, namespace: h.ns, name: 'patched' };
      await h.client.patch(key, { spec: { terminationGracePeriodSeconds: null } });
      return h.client.patch(key, { spec: { priority: null } });
    },
    fields: podFields,
    expected: BARE_POD,
  },
  {
    name: 'a Node with capacity only: allocatable is the capacity',
    run: (h) =>
      h.client.create({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: `${h.prefix}cap-only` },
        spec: { unschedulable: true },
        status: { capacity: { cpu: '4', memory: '16Gi', pods: '110' } },
      }),
    fields: (n) => ({ capacity: n.status?.capacity, allocatable: n.status?.allocatable }),
    expected: {
      capacity: { cpu: '4', memory: '16Gi', pods: '110' },
      allocatable: { cpu: '4', memory: '16Gi', pods: '110' },
    },
  },
  {
    name: "a Node's own allocatable is kept",
    run: (h) =>
      h.client.create({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: `${h.prefix}both` },
        spec: { unschedulable: true },
        status: { capacity: { cpu: '4' }, allocatable: { cpu: '3900m' } },
      }),
    fields: (n) => ({ capacity: n.status?.capacity, allocatable: n.status?.allocatable }),
    expected: { capacity: { cpu: '4' }, allocatable: { cpu: '3900m' } },
  },
  {
    name:
      'a PodDisruptionBudget: no spec defaults, and its status counts are 0 until the disruption ' +
      'controller writes them',
    run: (h) =>
      h.client.create({
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'pdb', namespace: h.ns },
        spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'none' } } },
      }),
    fields: pdbFields,
    expected: { spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'none' } } }, status: ZERO_PDB_STATUS },
  },
  {
    name: 'a ReplicaSet without replicas has 1; its template gets 30 s of grace but not requests from limits',
    run: (h) =>
      h.client.create({
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'rs', namespace: h.ns },
        spec: {
          selector: { matchLabels: { app: 'defaults-rs' } },
          template: {
            metadata: { labels: { app: 'defaults-rs' } },
            spec: {
              schedulerName: SCHEDULER,
              containers: [{ name: 'main', image: IMAGE, resources: { limits: { cpu: '1' } } }],
            },
          },
        },
      }),
    fields: (rs) => ({
      replicas: rs.spec.replicas,
      grace: rs.spec.template.spec.terminationGracePeriodSeconds,
      resources: rs.spec.template.spec.containers[0].resources,
    }),
    expected: { replicas: 1, grace: 30, resources: { limits: { cpu: '1' } } },
  },
  {
    name:
      "a bare NodePool: the CRD's disruption defaults (0s, WhenEmptyOrUnderutilized, one 10% " +
      'budget) and expireAfter 720h',
    run: (h) => h.client.create(nodePool(h, 'bare')),
    fields: nodePoolFields,
    expected: { disruption: DEFAULT_DISRUPTION, expireAfter: '720h' },
  },
  {
    name: 'a NodePool that sets part of spec.disruption gets the rest',
    run: (h) => h.client.create(nodePool(h, 'partial', { disruption: { consolidationPolicy: 'WhenEmpty' } })),
    fields: nodePoolFields,
    expected: { disruption: { ...DEFAULT_DISRUPTION, consolidationPolicy: 'WhenEmpty' }, expireAfter: '720h' },
  },
  {
    name: 'a NodePool budget without nodes gets 10%; an empty budget list stays empty',
    async run(h) {
      const a = await h.client.create(nodePool(h, 'budget', { disruption: { budgets: [{ reasons: ['Empty'] }] } }));
      const b = await h.client.create(nodePool(h, 'no-budgets', { disruption: { budgets: [] } }));
      return [a, b];
    },
    fields: (pools: Json[]) => pools.map((np) => np.spec.disruption.budgets),
    expected: [[{ nodes: '10%', reasons: ['Empty'] }], []],
  },
  {
    name: 'a bare NodeClaim expires after 720h',
    run: (h) =>
      h.client.create({
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodeClaim',
        metadata: { name: `${h.prefix}bare` },
        spec: { nodeClassRef: NODE_CLASS, requirements: [] },
      }),
    fields: (nc) => ({ expireAfter: nc.spec.expireAfter, terminationGracePeriod: nc.spec.terminationGracePeriod }),
    expected: { expireAfter: '720h', terminationGracePeriod: undefined },
  },
];
