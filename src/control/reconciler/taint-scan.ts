// SPDX-License-Identifier: Apache-2.0
// What the disruption loop's clean-up step reads from an index (KARPENTER.md#disruption-loop step 3): every
// machine's providerID (marks on machines that are gone are forgotten) and the live Nodes that
// carry the disrupted taint (left over when no command holds them). Both depend on each
// StateNode's Node and NodeClaim alone, so a new index is compared with the last one place by
// place: the live index (src/core/cluster/live-index.ts) hands out a new StateNode only for a
// machine whose objects or pods changed, and keeps the others, so one pod event re-reads one
// machine instead of 5,000. When the machines themselves differ (one came or went, the order
// moved) the scan starts over.
import { hasDisruptedTaint, type ClusterIndex, type StateNode } from '../../core/cluster/state.js';

export interface TaintScanResult {
  /** providerIDs of every machine in the index. */
  existing: ReadonlySet<string>;
  /** StateNodes with a live Node carrying the disrupted taint and no deleting NodeClaim, in index order. */
  tainted: StateNode[];
}

const isTainted = (sn: StateNode): boolean =>
  sn.node !== undefined &&
  hasDisruptedTaint(sn.node.spec.taints) &&
  !sn.node.metadata.deletionTimestamp &&
  !sn.nodeClaim?.metadata.deletionTimestamp;

export class TaintScan {
  /** Off: every new index is scanned whole (the reference the equality test compares with). */
  incremental = true;
  private last:
    | {
        index: ClusterIndex;
        stateNodes: readonly StateNode[];
        /** providerID → how many machines carry it (several Nodes may share one). */
        counts: Map<string, number>;
        existing: Set<string>;
        /** Places in stateNodes of the tainted machines. */
        places: Set<number>;
        result: TaintScanResult;
      }
    | undefined;

  scan(index: ClusterIndex): TaintScanResult {
    const last = this.last;
    if (last?.index === index) return last.result;
    const next = index.stateNodes;
    if (!this.incremental || last === undefined || !this.update(last, next)) return this.full(index);
    last.index = index;
    last.stateNodes = next;
    last.result = { existing: last.existing, tainted: [...last.places].sort((a, b) => a - b).map((i) => next[i]) };
    return last.result;
  }

  /** Applies the machines that differ from the last scan's; false when they cannot be matched place by place. */
  private update(last: NonNullable<TaintScan['last']>, next: readonly StateNode[]): boolean {
    const prev = last.stateNodes;
    if (prev === next) return true;
    if (prev.length !== next.length) return false;
    const changed: number[] = [];
    for (let i = 0; i < next.length; i++) {
      if (prev[i] === next[i]) continue;
      if (prev[i].name !== next[i].name) return false;
      changed.push(i);
    }
    for (const i of changed) {
      const was = prev[i];
      const now = next[i];
      if (was.providerID !== now.providerID) {
        if (was.providerID) uncount(last.counts, last.existing, was.providerID);
        if (now.providerID) count(last.counts, last.existing, now.providerID);
      }
      if (isTainted(now)) last.places.add(i);
      else last.places.delete(i);
    }
    return true;
  }

  private full(index: ClusterIndex): TaintScanResult {
    const counts = new Map<string, number>();
    const existing = new Set<string>();
    const places = new Set<number>();
    const tainted: StateNode[] = [];
    index.stateNodes.forEach((sn, i) => {
      if (sn.providerID) count(counts, existing, sn.providerID);
      if (!isTainted(sn)) return;
      places.add(i);
      tainted.push(sn);
    });
    const result = { existing, tainted };
    this.last = { index, stateNodes: index.stateNodes, counts, existing, places, result };
    return result;
  }
}

function count(counts: Map<string, number>, existing: Set<string>, id: string): void {
  counts.set(id, (counts.get(id) ?? 0) + 1);
  existing.add(id);
}

function uncount(counts: Map<string, number>, existing: Set<string>, id: string): void {
  const n = (counts.get(id) ?? 0) - 1;
  if (n > 0) counts.set(id, n);
  else {
    counts.delete(id);
    existing.delete(id);
  }
}
