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
import { byMachinePlace, type StateNode } from '../cluster/state.js';
import { walkOrdered } from '../cluster/ordered-walk.js';

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
 * The places of `after` matched with those of `before`, when machines came or went: both lists are
 * in machine order (the live index keeps them so), walked side by side. Undefined when more than
 * `limit` places changed, came or went, or a list is out of order where it differs.
 */
export function alignedPositions(
  before: readonly StateNode[],
  after: readonly StateNode[],
  limit: number,
): Alignment | undefined {
  const out: Alignment = {
    before: new Int32Array(after.length),
    after: new Int32Array(before.length),
    changed: [],
    gone: [],
  };
  const walked = walkOrdered(before, after, byMachinePlace, limit, (i, j) => {
    if (j < 0) {
      out.after[i] = -1;
      out.gone.push(i);
    } else if (i < 0) {
      out.before[j] = -1;
      out.changed.push(j);
    } else {
      out.before[j] = i;
      out.after[i] = j;
      if (before[i] !== after[j]) out.changed.push(j);
    }
  });
  return walked ? out : undefined;
}
