// SPDX-License-Identifier: Apache-2.0
// Each node's prepared facts (PreparedNode in src/core/facts/node-facts.ts), kept across
// evaluations: the part of a node's derivation that does not read the clock — the pass over its
// pods, its labels, conditions and thresholds — is made once per change of the node's objects,
// policy or PDBs, and every instant after that reads only the few pods that can move with time.
// This is what keeps an evaluation that derives every node (a verdict cache switched off or
// missed everywhere: a window edge, a policy's consolidateAfter crossing) linear in nodes, not pods.
//
// Identity is the change signal, as in node-result-cache.ts: the cluster stores hand out frozen
// objects and replace them on every write.
import type { PolicySpec } from '../../../rules/model.js';
import { nodePoolOf, type ClusterIndex, type StateNode } from '../cluster/state.js';
import type { Node, NodeClaim, NodePool, Pod } from '../cluster/types.js';
import type { PreparedNode } from '../facts/node-facts.js';

interface Entry {
  node: Node | undefined;
  nodeClaim: NodeClaim | undefined;
  pods: readonly Pod[];
  pool: NodePool | undefined;
  policy: PolicySpec;
  pdbEpoch: number;
  prepared: PreparedNode;
  seen: number;
}

const sameElements = <T>(a: readonly T[], b: readonly T[]): boolean => {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

export class PreparedNodeCache {
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

  /** Keeps the node's entry through this pass (its verdict was reused, so `get` was not asked). */
  keep(name: string): void {
    const e = this.entries.get(name);
    if (e && e.seen !== this.pass) {
      e.seen = this.pass;
      this.live++;
    }
  }

  /**
   * The node's prepared facts: kept ones while its Node, NodeClaim, bound pods, NodePool, policy
   * and the PDB epoch (bumped by the caller whenever what PDBs decide changed) are the same, else
   * `prepare`'s, kept for the next evaluation.
   */
  get(
    index: ClusterIndex,
    sn: StateNode,
    policy: PolicySpec,
    pdbEpoch: number,
    prepare: (sn: StateNode) => PreparedNode,
  ): PreparedNode {
    const poolName = nodePoolOf(sn);
    const pool = poolName === undefined ? undefined : index.nodePoolsByName.get(poolName);
    const e = this.entries.get(sn.name);
    if (e && e.seen !== this.pass) {
      e.seen = this.pass;
      this.live++;
      if (
        e.node === sn.node &&
        e.nodeClaim === sn.nodeClaim &&
        e.pool === pool &&
        e.policy === policy &&
        e.pdbEpoch === pdbEpoch &&
        sameElements(e.pods, sn.pods)
      )
        return e.prepared;
    }
    const prepared = prepare(sn);
    if (!e) this.live++;
    this.entries.set(sn.name, {
      node: sn.node,
      nodeClaim: sn.nodeClaim,
      pods: sn.pods,
      pool,
      policy,
      pdbEpoch,
      prepared,
      seen: this.pass,
    });
    return prepared;
  }
}
