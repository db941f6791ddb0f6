// SPDX-License-Identifier: Apache-2.0
// What scheduling simulations derive from objects that did not change, kept across cluster
// indexes: a busy simulated cluster gets a new index several times a tick (every write), yet
// most machines, their pods and the NodePools are the same objects as before. Listed objects
// are never changed in place (a change replaces the object), so an object's identity stands for
// its content — the same rule podRequests' cache (src/core/cluster/resources.ts) relies on.
// Each answer is exactly what deriving it again would give; the runtime can switch this off
// (Runtime.incrementalScheduling) to check that in tests and to measure it in the bench.
import { isDaemonSetPod, type ClusterIndex, type StateNode } from '../../core/cluster/state.js';
import { stateNodeChanges } from '../../core/cluster/live-index.js';
import type { NodePool, Pod } from '../../core/cluster/types.js';
import type { InstanceType } from '../cloud/provider.js';
import { isPending, poolTemplate, type SimulationEnv } from './cluster-simulation.js';
import { deletingPlaces, PassNodes, PassPlaces, ReschedulablePods } from './pass-nodes.js';
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

  /** The machines deleting or marked, and each kind's existing capacity, kept across passes. */
  private readonly deletingNodes = deletingPlaces();
  private readonly passNodes = [
    new PassNodes(false, (sn, blocked) => this.simNode(sn, blocked)),
    new PassNodes(true, (sn, blocked) => this.simNode(sn, blocked)),
  ];
  private readonly reschedulablePods = new ReschedulablePods();
  private lastPending: { unbound: readonly Pod[]; pending: Pod[] } | undefined;
  /** noDaemonSetPods' answer per index, and per place of the last index read whether its machine has one. */
  private readonly noDaemonSets = new WeakMap<ClusterIndex, boolean>();
  /** The machines holding a DaemonSet's pod (by the kept answer of their machine entry). */
  private readonly daemonSetMachines = new PassPlaces<StateNode>((sn) => {
    const e = this.entry(sn);
    return {
      value: (e === undefined ? sn.pods.some(isDaemonSetPod) : e.daemonSetPods) ? sn : undefined,
      until: Infinity,
    };
  });

  private lastStray: { index: ClusterIndex; names: Set<string> } | undefined;

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
  noDaemonSetPods(index: ClusterIndex, env: SimulationEnv): boolean {
    let answer = this.noDaemonSets.get(index);
    if (answer === undefined) {
      answer =
        this.daemonSetMachines.answers(index, env).length === 0 &&
        !index.unboundPods.some(isDaemonSetPod) &&
        this.strayDaemonSetPods(index).size === 0;
      this.noDaemonSets.set(index, answer);
    }
    return answer;
  }

  /**
   * The node names under which a DaemonSet's pod is bound while no Node has that name, kept
   * across indexes: from a live index, only the names its events touched (pods bound there, a
   * Node come or gone) are read again; otherwise every name with pods.
   */
  strayDaemonSetPods(index: ClusterIndex): ReadonlySet<string> {
    const stray = (name: string): boolean =>
      !index.nodesByName.has(name) && (index.podsByNodeName.get(name) ?? []).some(isDaemonSetPod);
    const l = this.lastStray;
    const change = l && stateNodeChanges(l.index, index);
    if (l !== undefined && change !== undefined) {
      const names = new Set(change.podNodes);
      for (const sn of [...change.gone, ...change.came]) if (sn.node) names.add(sn.name);
      for (const name of names) {
        if (stray(name)) l.names.add(name);
        else l.names.delete(name);
      }
      l.index = index;
      return l.names;
    }
    const names = new Set<string>();
    for (const name of index.podsByNodeName.keys()) if (stray(name)) names.add(name);
    this.lastStray = { index, names };
    return names;
  }

  /** The machines deleting or marked (deletingOrMarked), in index order. */
  deleting(index: ClusterIndex, env: SimulationEnv): StateNode[] {
    return this.deletingNodes.answers(index, env);
  }

  /** The existing capacity of a pass of this kind: every machine not deleting or marked, as `simNode`. */
  baseNodes(index: ClusterIndex, env: SimulationEnv, consolidation: boolean): SimNode[] {
    return this.passNodes[consolidation ? 1 : 0].nodes(index, env);
  }

  /** The machine's currently reschedulable pods at `now` (isCurrentlyReschedulable). */
  reschedulable(index: ClusterIndex, sn: StateNode, now: number): Pod[] {
    return this.reschedulablePods.of(index, sn, now);
  }

  /** The pending pods: the index's unbound pods that are pending, again while those are the same list. */
  pending(index: ClusterIndex): Pod[] {
    const l = this.lastPending;
    if (l !== undefined && l.unbound === index.unboundPods) return l.pending;
    const pending = index.unboundPods.filter(isPending);
    this.lastPending = { unbound: index.unboundPods, pending };
    return pending;
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
   * Else `build(from)`, kept as the last, where `from` is the last base with the nodes that left
   * and came since (when `nodes` and the last base's are both outputs of baseNodes that its log
   * still links, and the pools are the same).
   */
  prepared(
    consolidation: boolean,
    nodes: readonly SimNode[],
    pools: PreparedPools,
    build: (from?: { prepared: PreparedScheduling; gone: SimNode[]; came: SimNode[] }) => PreparedScheduling,
  ): PreparedScheduling {
    const k = consolidation ? 1 : 0;
    const l = this.lastBases[k];
    if (l !== undefined && l.pools === pools && sameItems(l.nodes, nodes)) return l.prepared;
    const change = l !== undefined && l.pools === pools ? this.passNodes[k].changesBetween(l.nodes, nodes) : undefined;
    const prepared = build(change && { prepared: l!.prepared, ...change });
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
