// SPDX-License-Identifier: Apache-2.0
// What the evaluator keeps of each node across evaluations, short of its verdict: the node's
// place in its pool's budget count (NodeRow) once per cluster index, and its prepared facts
// (PreparedNode in src/core/facts/node-facts.ts) once per change of its objects, of what it
// reads of its policy (node-facts.ts preparedKeyOf) or of PDBs.
// The part of a node's derivation that does not read the clock — the pass over its pods, its
// labels, conditions and thresholds — is then made once, and every instant after that reads only
// the few pods that can move with time. This is what keeps an evaluation that derives every node
// (a verdict cache switched off or missed everywhere: a window edge, a policy change's trial)
// linear in nodes, not pods.
//
// Identity is the change signal for objects, as in node-result-cache.ts: the cluster stores hand
// out frozen objects and replace them on every write, and an index is never changed once built.
import type { PolicySpec } from '../../../rules/model.js';
import {
  isDeleting,
  isInitialized,
  isInstanceTerminating,
  isManaged,
  isReady,
  nodePoolOf,
  type ClusterIndex,
  type StateNode,
} from '../cluster/state.js';
import type { Node, NodeClaim, NodePool, Pod } from '../cluster/types.js';
import type { PreparedNode } from '../facts/node-facts.js';
import type { Memoised } from './fact-combinations.js';

/** A state node as its pool's budget counts it (KARPENTER.md#budget-counting), by its own objects. */
export interface NodeRow {
  sn: StateNode;
  /** The StateNode's name and providerID, read here once: a walk over every row reads them off one shape. */
  name: string;
  id: string | undefined;
  pool: string | undefined;
  /** Counted in its pool: it has one, is managed and initialized, and its instance is not terminating. */
  counted: boolean;
  /** Disrupting by its own objects (not ready, or deleting); the in-flight marks are added per instant. */
  disrupting: boolean;
  /** Its prepared facts, when it has a Node. */
  entry?: Entry;
}

export function nodeRow(sn: StateNode): NodeRow {
  const pool = nodePoolOf(sn);
  return {
    sn,
    name: sn.name,
    id: sn.providerID,
    pool,
    counted: pool !== undefined && isManaged(sn) && isInitialized(sn) && !isInstanceTerminating(sn),
    disrupting: !isReady(sn) || isDeleting(sn),
  };
}

interface Entry extends Memoised {
  node: Node | undefined;
  nodeClaim: NodeClaim | undefined;
  pods: readonly Pod[];
  pool: NodePool | undefined;
  policy: PolicySpec;
  /** What preparing read of the policy (preparedKeyOf). */
  preparedKey: string;
  pdbEpoch: number;
  /** The cluster index (by its number here) the objects above were last found the same in. */
  checkedIn: number;
}

const sameElements = <T>(a: readonly T[], b: readonly T[]): boolean => {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

export class PreparedNodeCache {
  private index: ClusterIndex | undefined;
  /** Counts the indexes seen; an entry checked in the current one needs no check of its objects. */
  private indexNumber = 0;
  private rows: NodeRow[] = [];
  /** The entries by node name, carried from one index to the next. */
  private byName = new Map<string, Entry>();

  /** The index's rows in stateNodes order, made once per index; entries of nodes it no longer holds are dropped. */
  rowsOf(index: ClusterIndex): readonly NodeRow[] {
    if (index !== this.index) {
      this.index = index;
      this.indexNumber++;
      const previous = this.rows;
      const { stateNodes } = index;
      // An index made from the last one by a few events (live-index.ts) keeps the other StateNodes,
      // in their places: their rows, which depend on the StateNode alone, are kept with them.
      let sameNames = previous.length === stateNodes.length;
      this.rows = stateNodes.map((sn, i) => {
        const was = sameNames ? previous[i] : undefined;
        if (was?.sn === sn) return was;
        if (was?.sn.name !== sn.name) sameNames = false;
        const row = nodeRow(sn);
        row.entry = this.byName.get(sn.name);
        return row;
      });
      // The same names in the same places: the entries by name hold no node the index lost.
      if (sameNames) return this.rows;
      const kept = new Map<string, Entry>();
      for (const row of this.rows) {
        const e = this.byName.get(row.sn.name);
        if (e === undefined) continue;
        row.entry = e;
        kept.set(row.sn.name, e);
      }
      this.byName = kept;
    }
    return this.rows;
  }

  /**
   * The rows of `index`, made from the last index's by a few StateNodes replaced in their places
   * (`positions`, found by changed-nodes.ts): only those rows are made again. The caller has
   * checked that the last index given here is the one `index` was compared with.
   */
  rowsAfter(index: ClusterIndex, last: ClusterIndex, positions: readonly number[]): readonly NodeRow[] | undefined {
    if (this.index !== last) return undefined;
    this.index = index;
    this.indexNumber++;
    const rows = this.rows.slice();
    for (const i of positions) {
      const sn = index.stateNodes[i];
      const row = nodeRow(sn);
      row.entry = this.byName.get(sn.name);
      rows[i] = row;
    }
    this.rows = rows;
    return rows;
  }

  /**
   * The rows of `index`, made from the last index's when machines came or went: row `j` is the
   * last index's row `from[j]` while its StateNode is the same, else made again. Entries of the
   * names in `gone` are dropped. The caller has checked that the last index given here is `last`.
   */
  rowsAligned(
    index: ClusterIndex,
    last: ClusterIndex,
    from: Int32Array,
    gone: Iterable<string>,
  ): readonly NodeRow[] | undefined {
    if (this.index !== last) return undefined;
    this.index = index;
    this.indexNumber++;
    const previous = this.rows;
    const { stateNodes } = index;
    const rows: NodeRow[] = new Array(stateNodes.length);
    for (const name of gone) this.byName.delete(name);
    for (let j = 0; j < stateNodes.length; j++) {
      const sn = stateNodes[j];
      const was = from[j] < 0 ? undefined : previous[from[j]];
      if (was?.sn === sn) rows[j] = was;
      else {
        const row = nodeRow(sn);
        row.entry = this.byName.get(sn.name);
        rows[j] = row;
      }
    }
    this.rows = rows;
    return rows;
  }

  /**
   * The row's prepared facts (a row of the index last given to `rowsOf`): kept ones while its
   * Node, NodeClaim, bound pods, NodePool, what preparing read of the policy (`preparedKey`) and
   * the PDB epoch (bumped by the caller whenever what PDBs decide changed) are the same, else
   * `prepare`'s, kept for the next evaluation. Under another policy object with the same key (an
   * edited policy) the prepared facts are kept in a new entry: the rest of an entry is its
   * policy's rule graph's.
   */
  get(
    row: NodeRow,
    policy: PolicySpec,
    preparedKey: string,
    pdbEpoch: number,
    prepare: (sn: StateNode) => PreparedNode,
  ): Memoised {
    const { sn } = row;
    const e = row.entry;
    let kept: PreparedNode | undefined;
    if (e !== undefined && e.pdbEpoch === pdbEpoch && (e.policy === policy || e.preparedKey === preparedKey)) {
      const same =
        e.checkedIn === this.indexNumber ||
        (e.node === sn.node &&
          e.nodeClaim === sn.nodeClaim &&
          e.pool === this.poolOf(row) &&
          sameElements(e.pods, sn.pods));
      if (same && e.policy === policy) {
        e.checkedIn = this.indexNumber;
        return e;
      }
      if (same) kept = e.prepared;
    }
    const entry: Entry = {
      node: sn.node,
      nodeClaim: sn.nodeClaim,
      pods: sn.pods,
      pool: this.poolOf(row),
      policy,
      preparedKey,
      pdbEpoch,
      checkedIn: this.indexNumber,
      prepared: kept ?? prepare(sn),
    };
    row.entry = entry;
    this.byName.set(sn.name, entry);
    return entry;
  }

  private poolOf(row: NodeRow): NodePool | undefined {
    return row.pool === undefined ? undefined : this.index!.nodePoolsByName.get(row.pool);
  }
}
