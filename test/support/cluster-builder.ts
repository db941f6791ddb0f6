// SPDX-License-Identifier: Apache-2.0
// Builders for realistic cluster objects (the shapes `kubectl get -o yaml` prints), for table
// tests and snapshot fixtures. Every builder takes a name plus optional overrides and returns
// a plain object; nothing is random, so output is stable for golden files.
//
//   const np = makeNodePool('default', { budgets: [{ nodes: '20%' }] });
//   const { nodeClaim, node } = makeNodeClaimAndNode('default', 0);
//   const pod = makePod('web-1', node.metadata.name, { owner: 'ReplicaSet', labels: { app: 'web' } });
//   const pdb = makePdb('web', { matchLabels: { app: 'web' } }, { disruptionsAllowed: 0 });
//   const text = JSON.stringify(toList([np, nodeClaim, node, pod, pdb]));
import type {
  Condition,
  KarpenterBudget,
  KubeObject,
  LabelSelectorSpec,
  Node,
  NodeClaim,
  NodePool,
  Pod,
  PodDisruptionBudget,
  Toleration,
} from '../../src/core/cluster/types.js';

/** The instant fixtures are "taken" at unless a test says otherwise. */
export const SNAPSHOT_TIME = '2026-08-20T12:00:00Z';

const ready = (status: 'True' | 'False' | 'Unknown', at = '2026-08-01T00:00:00Z'): Condition => ({
  type: 'Ready',
  status,
  reason: status === 'True' ? 'KubeletReady' : 'KubeletNotReady',
  lastTransitionTime: at,
});

export interface NodePoolOptions {
  budgets?: KarpenterBudget[]; // omitted = field absent (Karpenter's 10% default)
  consolidationPolicy?: string;
  consolidateAfter?: string;
  expireAfter?: string;
  terminationGracePeriod?: string;
  /** Leave out `spec.disruption` entirely. */
  noDisruption?: boolean;
}

export function makeNodePool(name: string, o: NodePoolOptions = {}): NodePool {
  const disruption: NonNullable<NodePool['spec']['disruption']> = {};
  if (o.consolidationPolicy !== undefined) disruption.consolidationPolicy = o.consolidationPolicy;
  if (o.consolidateAfter !== undefined) disruption.consolidateAfter = o.consolidateAfter;
  if (o.budgets !== undefined) disruption.budgets = o.budgets;
  const templateSpec: Record<string, unknown> = {
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
    requirements: [
      { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand', 'spot'] },
    ],
  };
  if (o.expireAfter !== undefined) templateSpec.expireAfter = o.expireAfter;
  if (o.terminationGracePeriod !== undefined) templateSpec.terminationGracePeriod = o.terminationGracePeriod;
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: {
      name,
      uid: `uid-nodepool-${name}`,
      creationTimestamp: '2026-07-01T00:00:00Z',
      annotations: { 'karpenter.sh/nodepool-hash': '1234567890', 'karpenter.sh/nodepool-hash-version': 'v3' },
    },
    spec: {
      ...(o.noDisruption ? {} : { disruption }),
      template: { spec: templateSpec as NonNullable<NodePool['spec']['template']>['spec'] },
    },
  };
}

export interface NodeOptions {
  instanceType?: string; // default m5.large
  zone?: string; // default us-west-2a, b, c by index
  capacityType?: string; // default on-demand
  initialized?: boolean; // default true
  ready?: 'True' | 'False' | 'Unknown' | 'missing'; // default True
  /** NodeClaim deletionTimestamp (the usual "deleting" state). */
  deleting?: boolean;
  instanceTerminating?: boolean;
  drifted?: boolean;
  nodeAnnotations?: Record<string, string>;
  terminationGracePeriod?: string;
  expireAfter?: string;
  createdAt?: string; // default 2026-08-01T00:00:00Z
}

const ZONES = ['us-west-2a', 'us-west-2b', 'us-west-2c'];

/** A small stable number per pool name, so machines of different pools get distinct names. */
function poolOctet(nodePool: string): number {
  let h = 5381;
  for (let i = 0; i < nodePool.length; i++) h = (h * 33 + nodePool.charCodeAt(i)) % 1_000_003;
  return (h % 250) + 1;
}

/**
 * A launched, registered machine of `nodePool`: NodeClaim `<pool>-<suffix>` and Node
 * `ip-10-<pool>-<i/250>-<i%250+1>.us-west-2.compute.internal`, joined by providerID
 * `aws:///<zone>/i-…`. Names are unique per (pool, i).
 */
export function makeNodeClaimAndNode(
  nodePool: string,
  i: number,
  o: NodeOptions = {},
): { nodeClaim: NodeClaim; node: Node } {
  const zone = o.zone ?? ZONES[i % ZONES.length];
  const octet = poolOctet(nodePool);
  const instanceId = `i-${(octet * 0x1000000 + i).toString(16).padStart(17, '0')}`;
  const providerID = `aws:///${zone}/${instanceId}`;
  const nodeName = `ip-10-${octet}-${Math.floor(i / 250)}-${(i % 250) + 1}.us-west-2.compute.internal`;
  const claimName = `${nodePool}-${i.toString(36).padStart(5, 'a')}`;
  const created = o.createdAt ?? '2026-08-01T00:00:00Z';
  const labels: Record<string, string> = {
    'karpenter.sh/nodepool': nodePool,
    'node.kubernetes.io/instance-type': o.instanceType ?? 'm5.large',
    'topology.kubernetes.io/zone': zone,
    'karpenter.sh/capacity-type': o.capacityType ?? 'on-demand',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/os': 'linux',
  };
  const claimConditions: Condition[] = [
    { type: 'Launched', status: 'True', lastTransitionTime: created },
    { type: 'Registered', status: 'True', lastTransitionTime: created },
    { type: 'Initialized', status: o.initialized === false ? 'Unknown' : 'True', lastTransitionTime: created },
    { type: 'Consolidatable', status: 'True', lastTransitionTime: created },
  ];
  if (o.instanceTerminating)
    claimConditions.push({ type: 'InstanceTerminating', status: 'True', lastTransitionTime: SNAPSHOT_TIME });
  if (o.drifted)
    claimConditions.push({ type: 'Drifted', status: 'True', reason: 'NodePoolDrifted', lastTransitionTime: created });
  const nodeClaim: NodeClaim = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: claimName,
      uid: `uid-nodeclaim-${claimName}`,
      creationTimestamp: created,
      labels: { ...labels },
      finalizers: ['karpenter.sh/termination'],
      ...(o.deleting ? { deletionTimestamp: SNAPSHOT_TIME } : {}),
      ownerReferences: [
        { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: nodePool, uid: `uid-nodepool-${nodePool}` },
      ],
    },
    spec: {
      expireAfter: o.expireAfter ?? '720h',
      ...(o.terminationGracePeriod ? { terminationGracePeriod: o.terminationGracePeriod } : {}),
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [{ key: 'karpenter.sh/nodepool', operator: 'In', values: [nodePool] }],
    },
    status: {
      providerID,
      nodeName,
      capacity: { cpu: '2', memory: '8Gi', pods: '29' },
      allocatable: { cpu: '1930m', memory: '7Gi', pods: '29' },
      conditions: claimConditions,
    },
  };
  const nodeLabels = {
    ...labels,
    'kubernetes.io/hostname': nodeName,
    ...(o.initialized === false ? {} : { 'karpenter.sh/initialized': 'true' }),
    'karpenter.sh/registered': 'true',
  };
  const node: Node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: nodeName,
      uid: `uid-node-${i}`,
      creationTimestamp: created,
      labels: nodeLabels,
      ...(o.nodeAnnotations ? { annotations: o.nodeAnnotations } : {}),
      finalizers: ['karpenter.sh/termination'],
      ownerReferences: [
        { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: claimName, uid: `uid-nodeclaim-${claimName}` },
      ],
    },
    spec: { providerID, ...(o.deleting ? { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] } : {}) },
    status: {
      capacity: { cpu: '2', memory: '8Gi', pods: '29' },
      allocatable: { cpu: '1930m', memory: '7Gi', pods: '29' },
      conditions: o.ready === 'missing' ? [] : [ready(o.ready ?? 'True')],
    },
  };
  return { nodeClaim, node };
}

export interface PodOptions {
  namespace?: string; // default `default`
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Controller owner: a ReplicaSet (default), DaemonSet, StatefulSet, Node (mirror pod), Job or none. */
  owner?: 'ReplicaSet' | 'DaemonSet' | 'StatefulSet' | 'Node' | 'Job' | 'none';
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  startTime?: string; // default 2026-08-01T00:00:00Z; null-like via `noStartTime`
  noStartTime?: boolean;
  deletionTimestamp?: string;
  ready?: 'True' | 'False';
  tolerations?: Toleration[];
  priority?: number;
  requests?: Record<string, string>; // default cpu 100m, memory 128Mi
}

const OWNER_API: Record<string, string> = {
  ReplicaSet: 'apps/v1',
  DaemonSet: 'apps/v1',
  StatefulSet: 'apps/v1',
  Node: 'v1',
  Job: 'batch/v1',
};

/** A pod bound to `nodeName` (pass undefined for a pending pod). */
export function makePod(name: string, nodeName: string | undefined, o: PodOptions = {}): Pod {
  const owner = o.owner ?? 'ReplicaSet';
  const ownerName = owner === 'Node' ? (nodeName ?? 'node') : name.replace(/-[^-]+$/, '') || name;
  const phase = o.phase ?? (nodeName ? 'Running' : 'Pending');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      uid: `uid-pod-${o.namespace ?? 'default'}-${name}`,
      creationTimestamp: o.startTime ?? '2026-08-01T00:00:00Z',
      ...(o.labels ? { labels: o.labels } : {}),
      ...(o.annotations ? { annotations: o.annotations } : {}),
      ...(o.deletionTimestamp ? { deletionTimestamp: o.deletionTimestamp } : {}),
      ...(owner === 'none'
        ? {}
        : {
            ownerReferences: [
              {
                apiVersion: OWNER_API[owner],
                kind: owner,
                name: ownerName,
                uid: `uid-${owner}-${ownerName}`,
                controller: true,
              },
            ],
          }),
    },
    spec: {
      ...(nodeName ? { nodeName } : {}),
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...(o.tolerations ? { tolerations: o.tolerations } : {}),
      terminationGracePeriodSeconds: 30,
      containers: [{ name: 'main', resources: { requests: o.requests ?? { cpu: '100m', memory: '128Mi' } } }],
    },
    status: {
      phase,
      ...(o.noStartTime || !nodeName ? {} : { startTime: o.startTime ?? '2026-08-01T00:00:00Z' }),
      conditions: nodeName ? [{ type: 'Ready', status: o.ready ?? (phase === 'Running' ? 'True' : 'False') }] : [],
    },
  };
}

export interface PdbOptions {
  namespace?: string;
  disruptionsAllowed?: number; // omitted = no status at all
  unhealthyPodEvictionPolicy?: 'IfHealthyBudget' | 'AlwaysAllow';
  minAvailable?: number | string;
  maxUnavailable?: number | string;
}

/** A PDB; `selector` undefined leaves `spec.selector` out (matches nothing). */
export function makePdb(
  name: string,
  selector: LabelSelectorSpec | undefined,
  o: PdbOptions = {},
): PodDisruptionBudget {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: o.namespace ?? 'default', uid: `uid-pdb-${name}` },
    spec: {
      ...(selector ? { selector } : {}),
      ...(o.minAvailable !== undefined ? { minAvailable: o.minAvailable } : {}),
      ...(o.maxUnavailable !== undefined ? { maxUnavailable: o.maxUnavailable } : {}),
      ...(o.unhealthyPodEvictionPolicy ? { unhealthyPodEvictionPolicy: o.unhealthyPodEvictionPolicy } : {}),
    },
    ...(o.disruptionsAllowed !== undefined
      ? { status: { disruptionsAllowed: o.disruptionsAllowed, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } }
      : {}),
  };
}

/** Wraps objects the way `kubectl get … -o yaml|json` does. */
export function toList(objects: KubeObject[]): {
  apiVersion: 'v1';
  kind: 'List';
  metadata: { resourceVersion: string };
  items: KubeObject[];
} {
  return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items: objects };
}

/** `count` initialized, Ready machines of one pool plus `podsPerNode` ReplicaSet pods each. */
export function makePool(nodePool: string, count: number, podsPerNode = 0, o: NodeOptions = {}): KubeObject[] {
  const out: KubeObject[] = [];
  for (let i = 0; i < count; i++) {
    const { nodeClaim, node } = makeNodeClaimAndNode(nodePool, i, o);
    out.push(nodeClaim, node);
    for (let p = 0; p < podsPerNode; p++)
      out.push(makePod(`app-${i}-${p}`, node.metadata.name, { labels: { app: `app-${p % 5}` } }));
  }
  return out;
}
