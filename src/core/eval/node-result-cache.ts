// SPDX-License-Identifier: Apache-2.0
// Each node's verdict, kept across evaluations: a node whose objects, policy, PDBs and in-flight
// state are unchanged, evaluated at an instant at which its facts still hold (FactValidity), gets
// the verdict it had — without a pass over its pods or a rule run. A quiet tick of a 5,000-node
// cluster then costs identity checks per node, not a walk over 150,000 pods.
//
// Identity is the change signal: the cluster stores hand out frozen objects and replace them on
// every write (the memory cluster, an informer cache), and a rebuilt index keeps the objects of
// unchanged nodes, so an equal reference means an unchanged object.
import type { PolicySpec, WindowSpec } from '../../../rules/model.js';
import { nodePoolOf, type ClusterIndex, type StateNode } from '../cluster/state.js';
import type { Node, NodeClaim, NodePool, Pod } from '../cluster/types.js';
import type { FactValidity } from '../facts/fact-validity.js';
import type { DisruptionState } from '../facts/node-facts.js';
import type { PodWarning, WindowState } from '../facts/pod-windows.js';
import type { NodeResult } from './output.js';

/** Everything besides the node's own objects that its facts are derived from. */
export interface NodeInputs {
  policy: PolicySpec;
  /** Bumped by the caller whenever any PodDisruptionBudget changed. */
  pdbEpoch: number;
  /** The policy's node window facts (`window:w:*`) at this instant, joined. */
  windowKey: string;
  state: DisruptionState;
}

interface Entry {
  node: Node;
  nodeClaim: NodeClaim | undefined;
  pods: readonly Pod[];
  pool: NodePool | undefined;
  policy: PolicySpec;
  pdbEpoch: number;
  windowKey: string;
  known: ReadonlySet<string> | undefined;
  flags: number;
  validity: FactValidity;
  result: NodeResult;
  warnings: readonly PodWarning[];
  seen: number;
}

export interface CachedVerdict {
  result: NodeResult;
  warnings: readonly PodWarning[];
}

const sameElements = <T>(a: readonly T[], b: readonly T[]): boolean => {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

function flagsOf(sn: StateNode, state: DisruptionState): number {
  const id = sn.providerID;
  return (
    (id !== undefined && state.queued.has(id) ? 1 : 0) |
    (id !== undefined && state.marked.has(id) ? 2 : 0) |
    (state.nominated.has(sn.name) ? 4 : 0)
  );
}

export class NodeResultCache {
  private readonly entries = new Map<string, Entry>();
  private pass = 0;
  private live = 0;

  /** Starts one evaluation: entries not touched by it are dropped at `endPass`. */
  beginPass(): void {
    this.pass++;
    this.live = 0;
  }

  endPass(): void {
    if (this.entries.size <= this.live) return;
    for (const [name, e] of this.entries) if (e.seen !== this.pass) this.entries.delete(name);
  }

  /** Drops the verdict of a node the cluster no longer holds (an evaluation of the changed nodes saw it go). */
  forget(name: string): void {
    this.entries.delete(name);
  }

  get(
    index: ClusterIndex,
    sn: StateNode,
    inputs: NodeInputs,
    nowMs: number,
    windowState: (spec: WindowSpec, nowMs: number) => WindowState,
  ): (CachedVerdict & { validity: FactValidity }) | undefined {
    const e = this.entries.get(sn.name);
    if (!e) return undefined;
    e.seen = this.pass;
    this.live++;
    if (
      e.node !== sn.node ||
      e.nodeClaim !== sn.nodeClaim ||
      e.policy !== inputs.policy ||
      e.pdbEpoch !== inputs.pdbEpoch ||
      e.windowKey !== inputs.windowKey
    )
      return undefined;
    const poolName = nodePoolOf(sn);
    if (e.pool !== (poolName === undefined ? undefined : index.nodePoolsByName.get(poolName))) return undefined;
    if (e.known !== inputs.state.instanceTypes?.(poolName ?? '')) return undefined;
    if (e.flags !== flagsOf(sn, inputs.state)) return undefined;
    if (!sameElements(e.pods, sn.pods)) return undefined;
    if (!e.validity.holdsAt(nowMs, windowState)) return undefined;
    return e;
  }

  set(index: ClusterIndex, sn: StateNode, inputs: NodeInputs, validity: FactValidity, verdict: CachedVerdict): void {
    const poolName = nodePoolOf(sn);
    if (!this.entries.has(sn.name)) this.live++;
    this.entries.set(sn.name, {
      node: sn.node!,
      nodeClaim: sn.nodeClaim,
      pods: sn.pods,
      pool: poolName === undefined ? undefined : index.nodePoolsByName.get(poolName),
      policy: inputs.policy,
      pdbEpoch: inputs.pdbEpoch,
      windowKey: inputs.windowKey,
      known: inputs.state.instanceTypes?.(poolName ?? ''),
      flags: flagsOf(sn, inputs.state),
      validity,
      result: verdict.result,
      warnings: verdict.warnings,
      seen: this.pass,
    });
  }
}
