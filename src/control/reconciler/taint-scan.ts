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
import type { ChangesBetween } from './expiration.js';

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
  constructor(private readonly changes?: ChangesBetween) {}

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
    if (!this.incremental || last === undefined || !this.update(last, index)) return this.full(index);
    last.index = index;
    last.stateNodes = next;
    last.result = { existing: last.existing, tainted: [...last.places].sort((a, b) => a - b).map((i) => next[i]) };
    return last.result;
  }

  /** Applies the machines that differ from the last scan's; false when they cannot be matched place by place. */
  private update(last: NonNullable<TaintScan['last']>, index: ClusterIndex): boolean {
    const prev = last.stateNodes;
    const next = index.stateNodes;
    if (prev === next) return true;
    if (prev.length !== next.length) return false;
    let changed = this.modified(last.index, index, prev);
    if (changed === undefined) {
      changed = [];
      for (let i = 0; i < next.length; i++) {
        if (prev[i] === next[i]) continue;
        if (prev[i].name !== next[i].name) return false;
        changed.push(i);
      }
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

  /**
   * The places of the machines whose Node or NodeClaim was modified since `from`, from the view's
   * events; undefined (compare every place) when not known, when a Node or NodeClaim came or went,
   * or when a change may have moved a join (a providerID, a NodeClaim joined elsewhere). Pod
   * changes give machines new StateNodes but change nothing this scan reads.
   */
  private modified(from: ClusterIndex, index: ClusterIndex, prev: readonly StateNode[]): number[] | undefined {
    const events = this.changes?.(from, index);
    if (events === undefined) return undefined;
    const next = index.stateNodes;
    const nodeCount = index.nodesByName.size;
    const places = new Set<number>();
    for (const e of events) {
      const kind = e.object.kind;
      if (kind !== 'Node' && kind !== 'NodeClaim') continue;
      if (e.type !== 'MODIFIED') return undefined;
      const name = e.object.metadata.name;
      const sn = (kind === 'Node' ? index.nodesByName : index.nodeClaimsByName).get(name);
      if (sn === undefined) return undefined;
      const at = placeOf(next, sn, nodeCount);
      if (at === undefined || prev[at].name !== sn.name || prev[at].providerID !== sn.providerID) return undefined;
      if (kind === 'NodeClaim' && prev[at].nodeClaim?.metadata.name !== name) return undefined;
      places.add(at);
    }
    return [...places];
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

/**
 * Where `sn` is in stateNodes, by binary search on its name: the first `nodeCount` entries are the
 * Nodes in list order (by name), the rest the unjoined NodeClaims by name.
 */
function placeOf(stateNodes: readonly StateNode[], sn: StateNode, nodeCount: number): number | undefined {
  let lo = sn.node ? 0 : nodeCount;
  let hi = sn.node ? nodeCount : stateNodes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (stateNodes[mid].name < sn.name) lo = mid + 1;
    else hi = mid;
  }
  return stateNodes[lo] === sn ? lo : undefined;
}
