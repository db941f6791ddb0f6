// SPDX-License-Identifier: Apache-2.0
// Which machines of a cluster index changed since the last one. An index made from the last by
// a few watch events (src/core/cluster/live-index.ts) keeps every unchanged StateNode object in
// its place and puts a new one where a machine's Node, NodeClaim or pods changed, so the changed
// places are those where the objects differ: a comparison of references per machine, with no
// look at any node's objects. When machines came or went (a Node registered, one deleted: every
// tick while Drift replaces nodes), the places shift; both indexes keep their machines in name
// order, so the two are matched by name in one merge, still with no look at any node's objects.
// An index built from scratch (indexCluster) shares no StateNode with the last: every place
// differs and the caller evaluates every node, as it would anyway.
import type { StateNode } from '../cluster/state.js';

/**
 * The places in `after` whose StateNode is not the one in `before`, in order; undefined when the
 * machines are not the same ones in the same places (one came, went or moved) or more than
 * `limit` changed — then only a whole evaluation will do.
 */
export function changedPositions(
  before: readonly StateNode[],
  after: readonly StateNode[],
  limit: number,
): number[] | undefined {
  if (before.length !== after.length) return undefined;
  const out: number[] = [];
  if (before === after) return out;
  for (let i = 0; i < after.length; i++) {
    const b = before[i];
    const a = after[i];
    if (a === b) continue;
    if (a.name !== b.name || out.length >= limit) return undefined;
    out.push(i);
  }
  return out;
}

/** How the machines of one index are found in the next when some came or went (alignedPositions). */
export interface Alignment {
  /** For each place in `after`: the place in `before` of the machine with its name, or -1 for a new one. */
  before: Int32Array;
  /** For each place in `before`: its place in `after`, or -1 for a machine that went. */
  after: Int32Array;
  /** The places in `after` whose StateNode is not the one it had (changed or new), in order. */
  changed: number[];
  /** The places in `before` of the machines that went, in order. */
  gone: number[];
}

/**
 * How many of an index's first machines have a Node: the index lists its Nodes first, then its
 * NodeClaims without one, so this is where the second part starts. Counted from the machines
 * themselves, not the index's Nodes: an index may hold Nodes that are no machine of its (another
 * provider's, when kpol owns only its own).
 */
export function joinedCount(stateNodes: readonly StateNode[]): number {
  let lo = 0;
  let hi = stateNodes.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (stateNodes[mid].node !== undefined) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The places of `after` matched by name with those of `before`, when machines came or went: an
 * index keeps its Nodes in name order, then its NodeClaims without a Node in name order (the
 * first `joined` places are the Nodes), so each part is merged with the other index's as two
 * sorted lists. A name found in both but not matched (an order not as expected) is one that went
 * and one that came: more work, never a wrong answer. Undefined when more than `limit` places
 * changed, came or went.
 */
export function alignedPositions(
  before: readonly StateNode[],
  beforeJoined: number,
  after: readonly StateNode[],
  afterJoined: number,
  limit: number,
): Alignment | undefined {
  const out: Alignment = {
    before: new Int32Array(after.length),
    after: new Int32Array(before.length),
    changed: [],
    gone: [],
  };
  const merged =
    merge(before, 0, beforeJoined, after, 0, afterJoined, out, limit) &&
    merge(before, beforeJoined, before.length, after, afterJoined, after.length, out, limit);
  return merged ? out : undefined;
}

/** Merges the places [i, iEnd) of `before` with [j, jEnd) of `after` by name; false past the limit. */
function merge(
  before: readonly StateNode[],
  i: number,
  iEnd: number,
  after: readonly StateNode[],
  j: number,
  jEnd: number,
  out: Alignment,
  limit: number,
): boolean {
  const gone = (at: number) => {
    out.after[at] = -1;
    out.gone.push(at);
  };
  const came = (at: number) => {
    out.before[at] = -1;
    out.changed.push(at);
  };
  while (i < iEnd && j < jEnd) {
    const b = before[i];
    const a = after[j];
    if (a === b || a.name === b.name) {
      out.before[j] = i;
      out.after[i] = j;
      if (a !== b) out.changed.push(j);
      i++;
      j++;
    } else if (b.name < a.name) gone(i++);
    else came(j++);
    if (out.changed.length + out.gone.length > limit) return false;
  }
  while (i < iEnd) gone(i++);
  while (j < jEnd) came(j++);
  return out.changed.length + out.gone.length <= limit;
}
