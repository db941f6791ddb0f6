// SPDX-License-Identifier: Apache-2.0
// The embedded cluster's kube-scheduler and Karpenter provisioner in one: pending pods are
// simulated onto existing capacity and new NodeClaims; pods that fit a Ready, initialized,
// untainted node are bound there, the rest are nominated to in-flight NodeClaims, and
// NodeClaims are created for what nothing can hold. (Against a real cluster kube-scheduler
// binds; only the NodeClaim half runs — issue 4.)
import type { ClusterClient } from '../../core/cluster/client.js';
import {
  hasDisruptedTaint,
  isInitialized,
  isReady,
  type ClusterIndex,
  type StateNode,
} from '../../core/cluster/state.js';
import type { NodePool, Pod } from '../../core/cluster/types.js';
import { isPending, runSimulation, type SimulationEnv } from '../../world/scheduling/cluster-simulation.js';
import type { SchedulingResult } from '../../world/scheduling/simulate.js';
import type { NodeClaimFactory } from './nodeclaim-factory.js';

const NOMINATION_TTL_MS = 15 * 60_000;
/** Karpenter launches from a bounded list of instance types per NodeClaim. */
const MAX_LAUNCH_TYPES = 60;

export interface ProvisionResult {
  bound: number;
  created: string[];
  unschedulable: number;
  /**
   * Existing nodes (or in-flight NodeClaims) pending pods were placed on: nominated (KARPENTER.md#candidates row 6).
   */
  nominated: string[];
}

const podKey = (p: Pod) => p.metadata.uid ?? `${p.metadata.namespace}/${p.metadata.name}`;

export class Provisioner {
  /** pod → the in-flight NodeClaim it waits for, and since when. */
  private readonly nominations = new Map<string, { nodeClaim: string; since: number }>();

  /** `bind: false` leaves binding to a real kube-scheduler; pods that fit nowhere still get NodeClaims. */
  constructor(
    private readonly client: ClusterClient,
    private readonly factory: NodeClaimFactory,
    private readonly o: { bind?: boolean } = {},
  ) {}

  private canBind(sn: StateNode | undefined): boolean {
    return (
      sn?.node !== undefined &&
      isReady(sn) &&
      (sn.nodeClaim === undefined || isInitialized(sn)) &&
      !hasDisruptedTaint(sn.node.spec.taints) &&
      !sn.node.metadata.deletionTimestamp &&
      !sn.node.spec.unschedulable
    );
  }

  /**
   * `schedule`: runSimulation(index, [], false, env)'s answer, from a simulation pass the caller
   * shares with the disruption methods (the runtime's incremental path); default runSimulation.
   */
  async reconcile(
    index: ClusterIndex,
    env: SimulationEnv,
    schedule: (index: ClusterIndex) => { result: SchedulingResult; pending: Pod[] } = (ix) =>
      runSimulation(ix, [], false, env),
  ): Promise<ProvisionResult> {
    const out: ProvisionResult = { bound: 0, created: [], unschedulable: 0, nominated: [] };
    // Nothing pending: nothing to bind or launch (pods of draining nodes come back as new pending pods).
    if (!index.unboundPods.some(isPending)) return out;
    const { result, pending } = schedule(index);
    // Looked up by name in the index (every NodeClaim is its state node's), not a set of all 5,000 names a run.
    const waiting = (name: string): boolean => {
      const nc = index.nodeClaimsByName.get(name)?.nodeClaim;
      return nc !== undefined && nc.metadata.name === name && !nc.metadata.deletionTimestamp;
    };
    for (const [key, n] of this.nominations) {
      if (!waiting(n.nodeClaim) || env.now - n.since > NOMINATION_TTL_MS) this.nominations.delete(key);
    }
    for (const pod of pending) {
      const placement = result.placements.get(pod);
      if (!placement) {
        out.unschedulable++;
        continue;
      }
      if (!('node' in placement)) continue;
      out.nominated.push(placement.node);
      const sn = index.nodesByName.get(placement.node) ?? index.nodeClaimsByName.get(placement.node);
      if (this.canBind(sn)) {
        if (this.o.bind === false) continue;
        await this.client.patch(
          { kind: 'Pod', name: pod.metadata.name, namespace: pod.metadata.namespace },
          { spec: { nodeName: sn!.node!.metadata.name } },
        );
        this.nominations.delete(podKey(pod));
        out.bound++;
      } else if (sn?.nodeClaim) {
        this.nominations.set(podKey(pod), {
          nodeClaim: sn.nodeClaim.metadata.name,
          since: this.nominations.get(podKey(pod))?.since ?? env.now,
        });
      }
    }
    for (const plan of result.newNodeClaims) {
      if (plan.pods.every((p) => this.nominations.has(podKey(p)))) continue;
      const pool = index.nodePoolsByName.get(plan.nodePool) as NodePool | undefined;
      if (!pool || plan.instanceTypes.length === 0) continue;
      const nc = await this.client.create(
        this.factory.build(
          pool,
          plan.instanceTypes.slice(0, MAX_LAUNCH_TYPES).map((t) => t.name),
          plan.requirements.filter((r) => r.key !== 'node.kubernetes.io/instance-type'),
        ),
      );
      for (const p of plan.pods) this.nominations.set(podKey(p), { nodeClaim: nc.metadata.name, since: env.now });
      out.created.push(nc.metadata.name);
    }
    return out;
  }

  /** Node names with pods nominated to them (Karpenter's "node is nominated for a pending pod"). */
  nominatedNodeClaims(): Set<string> {
    return new Set([...this.nominations.values()].map((n) => n.nodeClaim));
  }
}
