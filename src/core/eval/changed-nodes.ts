// SPDX-License-Identifier: Apache-2.0
// Which machines of a cluster index changed since the last one. An index made from the last by
// a few watch events (src/core/cluster/live-index.ts) keeps every unchanged StateNode object in
// its place and puts a new one where a machine's Node, NodeClaim or pods changed, so the changed
// places are those where the objects differ: a comparison of references per machine, with no
// look at any node's objects. An index built from scratch (indexCluster) shares no StateNode with
// the last: every place differs and the caller evaluates every node, as it would anyway.
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
