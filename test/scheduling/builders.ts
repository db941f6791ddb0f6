// SPDX-License-Identifier: Apache-2.0
// Small builders for scheduling tests: pods with requests and constraints, simulated nodes, and
// a handful of instance types priced like us-west-2 on-demand/spot.
import type { InstanceType, Offering } from '../../src/world/cloud/provider.js';
import type { Pod, Taint, Toleration } from '../../src/core/cluster/types.js';
import { parseResourceList } from '../../src/core/cluster/resources.js';
import type { SimNode } from '../../src/world/scheduling/simulate.js';

export const ZONES = ['us-west-2a', 'us-west-2b', 'us-west-2c'];

export interface PodOptions {
  cpu?: string;
  memory?: string;
  gpu?: string;
  labels?: Record<string, string>;
  namespace?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  affinity?: unknown;
  topologySpreadConstraints?: unknown[];
}

export function pod(name: string, o: PodOptions = {}): Pod {
  const requests: Record<string, string> = {};
  if (o.cpu) requests.cpu = o.cpu;
  if (o.memory) requests.memory = o.memory;
  if (o.gpu) requests['nvidia.com/gpu'] = o.gpu;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: o.namespace ?? 'default', labels: o.labels ?? {} },
    spec: {
      containers: [{ name: 'main', resources: { requests } }],
      ...(o.nodeSelector && { nodeSelector: o.nodeSelector }),
      ...(o.tolerations && { tolerations: o.tolerations }),
      ...(o.affinity !== undefined && { affinity: o.affinity }),
      ...(o.topologySpreadConstraints && { topologySpreadConstraints: o.topologySpreadConstraints }),
    },
    status: { phase: 'Running' },
  };
}

export interface NodeOptions {
  cpu?: string;
  memory?: string;
  zone?: string;
  labels?: Record<string, string>;
  taints?: Taint[];
  pods?: Pod[];
  initialized?: boolean;
  nodeClaim?: string;
  consolidateAfterBlocked?: boolean;
}

export function simNode(name: string, o: NodeOptions = {}): SimNode {
  return {
    name,
    labels: {
      'kubernetes.io/hostname': name,
      'topology.kubernetes.io/zone': o.zone ?? ZONES[0],
      'kubernetes.io/arch': 'amd64',
      ...o.labels,
    },
    taints: o.taints ?? [],
    allocatable: parseResourceList({ cpu: o.cpu ?? '2', memory: o.memory ?? '8Gi', pods: '110' }),
    pods: o.pods ?? [],
    initialized: o.initialized ?? true,
    ...(o.nodeClaim && { nodeClaim: o.nodeClaim }),
    ...(o.consolidateAfterBlocked !== undefined && { consolidateAfterBlocked: o.consolidateAfterBlocked }),
  };
}

const GiB = 2 ** 30;

function offerings(onDemand: number, zones = ZONES): Offering[] {
  return zones.flatMap((zone) => [
    { zone, capacityType: 'on-demand' as const, price: onDemand, available: true },
    { zone, capacityType: 'spot' as const, price: Math.round(onDemand * 0.35 * 10000) / 10000, available: true },
  ]);
}

export function instanceType(
  name: string,
  cpu: number,
  memGiB: number,
  price: number,
  extra: Partial<InstanceType> & { gpu?: number } = {},
): InstanceType {
  const { gpu, ...rest } = extra;
  return {
    name,
    family: name.split('.')[0],
    architecture: 'amd64',
    capacity: { cpu, memory: memGiB * GiB, pods: 110, ...(gpu ? { 'nvidia.com/gpu': gpu } : {}) },
    offerings: offerings(price),
    ...rest,
  };
}

export const TYPES: InstanceType[] = [
  instanceType('m5.large', 2, 8, 0.096),
  instanceType('m5.xlarge', 4, 16, 0.192),
  instanceType('m5.2xlarge', 8, 32, 0.384),
  instanceType('c5.large', 2, 4, 0.085),
  instanceType('r5.large', 2, 16, 0.126),
  instanceType('m6g.large', 2, 8, 0.077, { architecture: 'arm64' }),
  instanceType('g5.xlarge', 4, 16, 1.006, { gpu: 1 }),
];

export const DEFAULT_POOL = {
  name: 'default',
  requirements: [
    { key: 'kubernetes.io/arch', operator: 'In' as const, values: ['amd64'] },
    { key: 'karpenter.sh/capacity-type', operator: 'In' as const, values: ['on-demand'] },
  ],
  taints: [],
  labels: {},
};
