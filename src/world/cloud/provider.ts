// SPDX-License-Identifier: Apache-2.0
// What kpol needs from a cloud: an instance-type catalog with offerings and prices, and
// launching, describing and terminating instances for NodeClaims (Karpenter's CloudProvider).
import type { NodeClaim } from '../../core/cluster/types.js';

export type CapacityType = 'on-demand' | 'spot' | 'reserved';

export interface Offering {
  zone: string;
  capacityType: CapacityType;
  price: number; // USD per hour
  available: boolean;
}

export interface InstanceType {
  name: string; // e.g. m5.large
  family: string; // e.g. m5
  architecture: 'amd64' | 'arm64';
  /**
   * Well-known labels the type defines beyond name, family and architecture (size, cpu, gpu name…); see
   * src/world/cloud/well-known-labels.ts.
   */
  labels?: Record<string, string>;
  /**
   * Allocatable resources as quantities: cpu (cores), memory (bytes), pods, and extended resources such as
   * nvidia.com/gpu.
   */
  capacity: Record<string, number>;
  /**
   * What the machine has before kubelet and system reservations (a Node's status.capacity); absent = same as
   * `capacity`.
   */
  nodeCapacity?: Record<string, number>;
  offerings: Offering[];
}

export interface Instance {
  providerID: string;
  instanceType: string;
  zone: string;
  capacityType: CapacityType;
  state: 'pending' | 'running' | 'terminating' | 'terminated';
  launchedAt: number;
  /** USD per hour of the offering it was launched from, when the provider knows it. */
  price?: number;
}

/** A cloud-side failure; `insufficientCapacity` marks an offering that cannot be launched now. */
export class CloudError extends Error {
  constructor(
    message: string,
    readonly insufficientCapacity = false,
  ) {
    super(message);
  }
}

export interface CloudProvider {
  instanceTypes(): readonly InstanceType[];
  /**
   * Launches the cheapest offering compatible with the NodeClaim's requirements; returns the instance (providerID,
   * type, zone, capacity type).
   */
  create(nodeClaim: NodeClaim): Promise<Instance>;
  /** undefined when the instance is gone (terminated long enough ago to be forgotten, or never existed). */
  get(providerID: string): Promise<Instance | undefined>;
  delete(providerID: string): Promise<void>;
  list(): Promise<Instance[]>;
  /**
   * Moves whenever an instance's state or the interruption queue may have changed (a launch, a
   * termination, a pending instance starting, a notice falling due). Optional: a caller that
   * finds none assumes something changed every time.
   */
  changeStamp?(): string;
  /**
   * The instances changed since `cursor` (0: since the start), each with an instant at which its
   * state changes (now, or later: running, terminating, terminated), and the cursor to ask with
   * next. `whole`: the cursor is behind what the cloud keeps, so any instance may have changed
   * (read them all); the changes are then those still to come, and more. Optional: a caller that
   * finds none reads every instance whenever the stamp moves.
   */
  changesSince?(cursor: number): { changes: readonly InstanceChange[]; cursor: number; whole?: true };
  /**
   * What list() would say of each instance, one providerID at a time: the call delivers what is
   * due now, as a listing does; the lookup it returns answers as a listing made at that moment
   * (until the cloud is written to or the clock moves), without describing every instance.
   * Optional: a caller that finds none lists.
   */
  describer?(): (providerID: string) => Instance | undefined;
}

/** One instance whose described state changes at `at` (ms, on the cloud's clock). */
export interface InstanceChange {
  providerID: string;
  at: number;
}
