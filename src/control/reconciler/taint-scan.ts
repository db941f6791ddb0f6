// SPDX-License-Identifier: Apache-2.0
// What the disruption loop's clean-up step reads from an index (KARPENTER.md#disruption-loop step 3): every
// machine's providerID (marks on machines that are gone are forgotten) and the live Nodes that
// carry the disrupted taint (left over when no command holds them). Both depend on each
// StateNode's Node and NodeClaim alone, so a new index is compared with the last one: the live
// index (src/core/cluster/live-index.ts) hands out a new StateNode only for a machine whose
// objects or pods changed, and keeps the others, so one pod event re-reads one machine instead of
// 5,000. The places of modified machines come from the view's watch events when it knows them;
// otherwise, or when machines came or went, the two lists are merged by identity and by their
// order (Nodes by name, then NodeClaims no Node joined, by name) — a pointer comparison per
// machine, and a look at the machines that differ. A list not in that order is scanned whole.
import { byMachinePlace, hasDisruptedTaint, type ClusterIndex, type StateNode } from '../../core/cluster/state.js';
import { walkOrdered } from '../../core/cluster/ordered-walk.js';
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
  /** Scans by path: whole, or only the machines that differ (tests). */
  readonly passes = { full: 0, kept: 0 };
  private last:
    | {
        index: ClusterIndex;
        stateNodes: readonly StateNode[];
        /** providerID → how many machines carry it (several Nodes may share one). */
        counts: Map<string, number>;
        existing: Set<string>;
        /** The tainted machines' StateNodes (as last read: a pod change gives a machine a new one), by machineKey. */
        tainted: Map<string, StateNode>;
        result: TaintScanResult;
      }
    | undefined;

  scan(index: ClusterIndex): TaintScanResult {
    const last = this.last;
    if (last?.index === index) return last.result;
    const next = index.stateNodes;
    if (!this.incremental || last === undefined || !this.update(last, index)) return this.full(index);
    this.passes.kept++;
    last.index = index;
    last.stateNodes = next;
    // Each tainted machine's StateNode in this index: the same Node and NodeClaim, perhaps other pods.
    const current = (sn: StateNode) => (sn.node ? index.nodesByName : index.nodeClaimsByName).get(sn.name)!;
    last.result = { existing: last.existing, tainted: [...last.tainted.values()].map(current).sort(byMachinePlace) };
    return last.result;
  }

  /** Applies the machines that differ from the last scan's; false when they cannot be matched. */
  private update(last: NonNullable<TaintScan['last']>, index: ClusterIndex): boolean {
    const prev = last.stateNodes;
    const next = index.stateNodes;
    if (prev === next) return true;
    const changed = prev.length === next.length ? this.modified(last.index, index, prev) : undefined;
    if (changed !== undefined) {
      for (const i of changed) this.apply(last, prev[i], next[i]);
      return true;
    }
    const differ = differences(prev, next);
    if (differ === undefined) return false;
    for (const [was, now] of differ) this.apply(last, was, now);
    return true;
  }

  /** One machine's StateNode replaced (or gone, or new): its providerID counted again, its taint read again. */
  private apply(last: NonNullable<TaintScan['last']>, was: StateNode | undefined, now: StateNode | undefined): void {
    if (was?.providerID !== now?.providerID) {
      if (was?.providerID) uncount(last.counts, last.existing, was.providerID);
      if (now?.providerID) count(last.counts, last.existing, now.providerID);
    }
    if (was) last.tainted.delete(machineKey(was));
    if (now && isTainted(now)) last.tainted.set(machineKey(now), now);
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
    const nodeCount = index.joined;
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
    this.passes.full++;
    const counts = new Map<string, number>();
    const existing = new Set<string>();
    const tainted = new Map<string, StateNode>();
    const list: StateNode[] = [];
    index.stateNodes.forEach((sn) => {
      if (sn.providerID) count(counts, existing, sn.providerID);
      if (!isTainted(sn)) return;
      tainted.set(machineKey(sn), sn);
      list.push(sn);
    });
    const result = { existing, tainted: list };
    // Only a list in machine order is merged with the next one (differences).
    this.last = inOrder(index.stateNodes)
      ? { index, stateNodes: index.stateNodes, counts, existing, tainted, result }
      : undefined;
    return result;
  }
}

/** A machine across indexes: its Node's name, or its NodeClaim's while no Node joined it. */
const machineKey = (sn: StateNode): string => (sn.node ? `Node/${sn.name}` : `NodeClaim/${sn.name}`);

function inOrder(xs: readonly StateNode[]): boolean {
  for (let i = 1; i < xs.length; i++) if (byMachinePlace(xs[i - 1], xs[i]) >= 0) return false;
  return true;
}

/** More differing machines than this between two lists: the scan starts over. */
const MERGE_LIMIT = 512;

/**
 * The machines that differ between two lists in machine order, as pairs of the last StateNode and
 * the new one (undefined: the machine is not in that list); the same object at a place is the same
 * machine, unchanged. Undefined when too many differ or `next` is out of order where it differs.
 */
function differences(
  prev: readonly StateNode[],
  next: readonly StateNode[],
): [StateNode | undefined, StateNode | undefined][] | undefined {
  const out: [StateNode | undefined, StateNode | undefined][] = [];
  const walked = walkOrdered(prev, next, byMachinePlace, MERGE_LIMIT, (i, j) => {
    const was = i < 0 ? undefined : prev[i];
    const now = j < 0 ? undefined : next[j];
    if (was !== now) out.push([was, now]);
  });
  return walked ? out : undefined;
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
