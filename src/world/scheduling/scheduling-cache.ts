// SPDX-License-Identifier: Apache-2.0
// What scheduling simulations derive from objects that did not change, kept across cluster
// indexes: a busy simulated cluster gets a new index several times a tick (every write), yet
// most machines, their pods and the NodePools are the same objects as before. Listed objects
// are never changed in place (a change replaces the object), so an object's identity stands for
// its content — the same rule podRequests' cache (src/core/cluster/resources.ts) relies on.
// Each answer is exactly what deriving it again would give; the runtime can switch this off
// (Runtime.incrementalScheduling) to check that in tests and to measure it in the bench.
import { isDaemonSetPod, type ClusterIndex, type StateNode } from '../../core/cluster/state.js';
import type { NodePool, Pod } from '../../core/cluster/types.js';
import type { InstanceType } from '../cloud/provider.js';
import { poolTemplate } from './cluster-simulation.js';
import { simNodeFromState } from './from-state.js';
import type { PreparedPool } from './new-claims.js';
import { nodeSums, SlotStore, type NodeSums, type PreparedScheduling } from './prepared.js';
import { launchableZonesOf, preparePools, type SimNode } from './simulate.js';
import { sameItems } from './same-items.js';

interface MachineEntry {
  node: StateNode['node'];
  nodeClaim: StateNode['nodeClaim'];
  pods: readonly Pod[];
  /** simNodeFromState without, with false and with true consolidateAfterBlocked. */
  variants: [SimNode | undefined, SimNode | undefined, SimNode | undefined];
  sums: NodeSums | undefined;
  /** Some pod of the machine is a DaemonSet's. */
  daemonSetPods: boolean;
}

export interface PreparedPools {
  pools: PreparedPool[];
  launchableZones: string[];
}

interface LastBase {
  nodes: readonly SimNode[];
  pools: PreparedPools;
  prepared: PreparedScheduling;
}

export class SchedulingCache {
  /** PreparedScheduling's slots of the machines simNode handed out, kept while their SimNode is. */
  readonly slots = new SlotStore();
  /** What callers keep beside a base while it is taken again (see `keptWith`). */
  private readonly withBase = new WeakMap<PreparedScheduling, unknown>();
  /** The last prepared base of each kind (without, with consolidation). */
  private readonly lastBases: [LastBase | undefined, LastBase | undefined] = [undefined, undefined];

  /** Keyed by the Node, else (a NodeClaim without a Node yet) by the NodeClaim. */
  private readonly machines = new WeakMap<object, MachineEntry>();
  private readonly sumsByNode = new WeakMap<SimNode, NodeSums>();
  private lastPools:
    | {
        nodePools: readonly NodePool[];
        instanceTypes: readonly InstanceType[];
        daemonSetPods: readonly Pod[];
        prepared: PreparedPools;
      }
    | undefined;

  private entry(sn: StateNode): MachineEntry | undefined {
    const key = sn.node ?? sn.nodeClaim;
    if (key === undefined) return undefined;
    let e = this.machines.get(key);
    if (e === undefined || e.node !== sn.node || e.nodeClaim !== sn.nodeClaim || !sameItems(e.pods, sn.pods)) {
      e = {
        node: sn.node,
        nodeClaim: sn.nodeClaim,
        pods: sn.pods,
        variants: [undefined, undefined, undefined],
        sums: undefined,
        daemonSetPods: sn.pods.some(isDaemonSetPod),
      };
      this.machines.set(key, e);
    }
    return e;
  }

  /**
   * Whether no pod of the index is a DaemonSet's, asking each machine's kept answer and reading
   * only the pods no machine holds (unbound, or bound to a Node that is gone). Then
   * daemonSetPods(index.snapshot.pods) is empty without reading every pod again.
   */
  noDaemonSetPods(index: ClusterIndex): boolean {
    for (const sn of index.stateNodes) {
      const e = this.entry(sn);
      if (e === undefined ? sn.pods.some(isDaemonSetPod) : e.daemonSetPods) return false;
    }
    if (index.unboundPods.some(isDaemonSetPod)) return false;
    for (const [name, pods] of index.podsByNodeName)
      if (!index.nodesByName.has(name) && pods.some(isDaemonSetPod)) return false;
    return true;
  }

  /** simNodeFromState(sn, …) — the same object while the machine's Node, NodeClaim and pods are. */
  simNode(sn: StateNode, consolidateAfterBlocked?: boolean): SimNode {
    const e = this.entry(sn);
    if (e === undefined) return simNodeFromState(sn, { consolidateAfterBlocked });
    const v = consolidateAfterBlocked === undefined ? 0 : consolidateAfterBlocked ? 2 : 1;
    let node = e.variants[v];
    if (node === undefined) {
      node = simNodeFromState(sn, consolidateAfterBlocked === undefined ? {} : { consolidateAfterBlocked });
      e.sums ??= nodeSums(node);
      this.sumsByNode.set(node, e.sums);
      e.variants[v] = node;
    }
    return node;
  }

  /** nodeSums(node), kept for the nodes simNode handed out. */
  sums(node: SimNode): NodeSums {
    return this.sumsByNode.get(node) ?? nodeSums(node);
  }

  /**
   * The last base of this kind again when it was built from the same nodes (SimNodes, which stand
   * for their content) and pools: a base is derived from those alone and runs never change it.
   * Else `build()`, kept as the last.
   */
  prepared(
    consolidation: boolean,
    nodes: readonly SimNode[],
    pools: PreparedPools,
    build: () => PreparedScheduling,
  ): PreparedScheduling {
    const k = consolidation ? 1 : 0;
    const l = this.lastBases[k];
    if (l !== undefined && l.pools === pools && sameItems(l.nodes, nodes)) return l.prepared;
    const prepared = build();
    this.lastBases[k] = { nodes, pools, prepared };
    return prepared;
  }

  /**
   * Something the caller derived from runs of `base` (SimulationPass keeps move results), kept
   * for as long as `prepared` hands out that base again: made by `make` on first use.
   */
  keptWith<T>(base: PreparedScheduling, make: () => T): T {
    let kept = this.withBase.get(base) as T | undefined;
    if (kept === undefined) {
      kept = make();
      this.withBase.set(base, kept);
    }
    return kept;
  }

  /**
   * preparePools and launchableZonesOf for these pools, types and DaemonSet pods; the last answer
   * again while they are the same objects (its instance-type answers, PreparedPool.compatible,
   * stay valid: the runtime's catalog is fixed for its life).
   */
  pools(
    nodePools: readonly NodePool[],
    instanceTypes: readonly InstanceType[],
    daemonSetPods: readonly Pod[],
  ): PreparedPools {
    const l = this.lastPools;
    if (
      l !== undefined &&
      l.instanceTypes === instanceTypes &&
      sameItems(l.nodePools, nodePools) &&
      sameItems(l.daemonSetPods, daemonSetPods)
    )
      return l.prepared;
    const pools = preparePools({ nodePools: nodePools.map(poolTemplate), instanceTypes, daemonSetPods });
    const prepared = { pools, launchableZones: launchableZonesOf(pools) };
    this.lastPools = { nodePools: [...nodePools], instanceTypes, daemonSetPods: [...daemonSetPods], prepared };
    return prepared;
  }
}
