// SPDX-License-Identifier: Apache-2.0
// The simulated cloud's instance-type catalog (catalog.json: us-west-2 types, zones, prices)
// and the price questions consolidation asks of it (KARPENTER.md#consolidation-decision).
import type { NodeSelectorRequirement } from '../../core/cluster/types.js';
import catalogData from './catalog.json' with { type: 'json' };
import type { CapacityType, InstanceType, Offering } from './provider.js';
import { offeringCompatible } from './offering-fit.js';
import {
  LABEL_INSTANCE_CATEGORY,
  LABEL_INSTANCE_CPU,
  LABEL_INSTANCE_GENERATION,
  LABEL_INSTANCE_GPU_COUNT,
  LABEL_INSTANCE_GPU_MANUFACTURER,
  LABEL_INSTANCE_GPU_NAME,
  LABEL_INSTANCE_MEMORY,
  LABEL_INSTANCE_SIZE,
  RESOURCE_GPU,
} from './well-known-labels.js';

/** One row of catalog.json: the machine as sold, before kubelet reservations. */
export interface CatalogEntry {
  name: string;
  family: string;
  architecture: 'amd64' | 'arm64';
  vcpu: number;
  memoryMiB: number;
  maxPods: number;
  gpus?: number;
  gpuName?: string;
  gpuManufacturer?: string;
  offerings: Offering[];
}

const MiB = 2 ** 20;
/** Share of memory the hypervisor keeps (Karpenter's AWS default VM_MEMORY_OVERHEAD_PERCENT). */
const VM_MEMORY_OVERHEAD = 0.075;
const EVICTION_HARD_MEMORY_MIB = 100;

/**
 * kube-reserved cpu in cores: 6 % of the first core, 1 % of the second, 0.5 % of the next two, 0.25 % of the rest (the
 * EKS formula).
 */
function kubeReservedCpu(vcpu: number): number {
  const tiers: [number, number][] = [
    [1, 0.06],
    [1, 0.01],
    [2, 0.005],
    [Infinity, 0.0025],
  ];
  let left = vcpu;
  let reserved = 0;
  for (const [cores, share] of tiers) {
    const n = Math.min(left, cores);
    reserved += n * share;
    left -= n;
  }
  return reserved;
}

/** Turns a catalog row into an InstanceType: allocatable = capacity − kube-reserved − eviction threshold. */
export function toInstanceType(e: CatalogEntry): InstanceType {
  const memoryMiB = e.memoryMiB - Math.ceil(e.memoryMiB * VM_MEMORY_OVERHEAD);
  const nodeCapacity: Record<string, number> = { cpu: e.vcpu, memory: memoryMiB * MiB, pods: e.maxPods };
  const capacity: Record<string, number> = {
    cpu: Math.round((e.vcpu - kubeReservedCpu(e.vcpu)) * 1000) / 1000,
    memory: (memoryMiB - (11 * e.maxPods + 255) - EVICTION_HARD_MEMORY_MIB) * MiB,
    pods: e.maxPods,
  };
  const [, category = '', generation = ''] = /^([a-z]+)(\d+)/.exec(e.family) ?? [];
  const labels: Record<string, string> = {
    [LABEL_INSTANCE_CATEGORY]: category,
    [LABEL_INSTANCE_GENERATION]: generation,
    [LABEL_INSTANCE_SIZE]: e.name.slice(e.name.indexOf('.') + 1),
    [LABEL_INSTANCE_CPU]: String(e.vcpu),
    [LABEL_INSTANCE_MEMORY]: String(e.memoryMiB),
  };
  if (e.gpus) {
    nodeCapacity[RESOURCE_GPU] = capacity[RESOURCE_GPU] = e.gpus;
    labels[LABEL_INSTANCE_GPU_COUNT] = String(e.gpus);
    if (e.gpuName) labels[LABEL_INSTANCE_GPU_NAME] = e.gpuName;
    if (e.gpuManufacturer) labels[LABEL_INSTANCE_GPU_MANUFACTURER] = e.gpuManufacturer;
  }
  return {
    name: e.name,
    family: e.family,
    architecture: e.architecture,
    labels,
    capacity,
    nodeCapacity,
    offerings: e.offerings.map((o) => ({ ...o })),
  };
}

export const CATALOG_REGION: string = catalogData.region;
export const CATALOG_ZONES: readonly string[] = catalogData.zones;

/** A fresh copy of the catalog on every call: callers (the simulator) may flip `available`. */
export function loadCatalog(): InstanceType[] {
  return (catalogData.instanceTypes as CatalogEntry[]).map(toInstanceType);
}

/** Which offerings count: requirements they must satisfy, or any predicate. */
export type OfferingFilter = readonly NodeSelectorRequirement[] | ((o: Offering, it: InstanceType) => boolean);

function accepts(filter: OfferingFilter | undefined, it: InstanceType, o: Offering): boolean {
  if (filter === undefined) return true;
  return typeof filter === 'function' ? filter(o, it) : offeringCompatible(filter, it, o);
}

/** Available offerings of `it` that pass the filter. */
export function availableOfferings(it: InstanceType, filter?: OfferingFilter): Offering[] {
  return it.offerings.filter((o) => o.available && accepts(filter, it, o));
}

/** The cheapest available offering passing the filter (first in catalog order on a tie); undefined if none. */
export function cheapestOffering(it: InstanceType, filter?: OfferingFilter): Offering | undefined {
  let best: Offering | undefined;
  for (const o of availableOfferings(it, filter)) if (best === undefined || o.price < best.price) best = o;
  return best;
}

/**
 * Order in which launch prices are judged (KARPENTER.md#consolidation-decision): reserved capacity first, then spot,
 * then on-demand.
 */
export const CAPACITY_TYPE_PRIORITY: readonly CapacityType[] = ['reserved', 'spot', 'on-demand'];

/**
 * Karpenter's worst launch price (KARPENTER.md#consolidation-decision): the price of the most expensive compatible
 * available offering in the first capacity type, of reserved → spot → on-demand, that has any.
 * Infinity when no offering qualifies (Karpenter's MaxFloat64).
 */
export function worstLaunchPrice(it: InstanceType, filter?: OfferingFilter): number {
  const offerings = availableOfferings(it, filter);
  for (const ct of CAPACITY_TYPE_PRIORITY) {
    const prices = offerings.filter((o) => o.capacityType === ct).map((o) => o.price);
    if (prices.length > 0) return Math.max(...prices);
  }
  return Number.POSITIVE_INFINITY;
}

/** Instance types with at least one qualifying offering, cheapest first (stable: catalog order on a tie). */
export function orderByPrice(types: readonly InstanceType[], filter?: OfferingFilter): InstanceType[] {
  return types
    .map((it, i) => ({ it, i, price: cheapestOffering(it, filter)?.price }))
    .filter((x): x is { it: InstanceType; i: number; price: number } => x.price !== undefined)
    .sort((a, b) => a.price - b.price || a.i - b.i)
    .map((x) => x.it);
}

/** The offering an instance runs on, for its price (a running node's price in consolidation). */
export function findOffering(
  types: readonly InstanceType[],
  instanceType: string,
  zone: string,
  capacityType: CapacityType,
): Offering | undefined {
  return types
    .find((t) => t.name === instanceType)
    ?.offerings.find((o) => o.zone === zone && o.capacityType === capacityType);
}
