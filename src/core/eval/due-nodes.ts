// SPDX-License-Identifier: Apache-2.0
// When each node's facts next move with time, earliest first: the instant its FactValidity ends
// (a consolidateAfter or expireAfter elapsing, a do-not-disrupt duration running out). An
// evaluation of only the changed nodes (evaluate-cluster.ts changedOnly) takes from here the
// nodes whose instant has come and derives them again with the changed ones, so time passing
// one node's threshold costs that node, not a pass over the cluster. Windows are not here: a
// window opening or closing is checked per window (evaluation-span.ts) and makes a whole pass.
//
// A node derived again is pushed with its new instant; its old entry stays until it comes due,
// and then costs one verdict-cache lookup. A whole evaluation starts a new queue.

/** A binary min-heap of (instant, place of the node in the index) pairs. */
export class DueNodes {
  private readonly at: number[] = [];
  private readonly place: number[] = [];

  /** Notes that the node at `place` must be derived again from `atMs` on (nothing when never). */
  push(atMs: number, place: number): void {
    if (atMs === Infinity) return;
    const { at, place: places } = this;
    let i = at.length;
    at.push(atMs);
    places.push(place);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (at[parent] <= atMs) break;
      at[i] = at[parent];
      places[i] = places[parent];
      i = parent;
    }
    at[i] = atMs;
    places[i] = place;
  }

  /** Entries held, those of nodes derived again since (or gone) among them. */
  get size(): number {
    return this.at.length;
  }

  /** The earliest instant any node is due (Infinity when none is). */
  next(): number {
    return this.at.length > 0 ? this.at[0] : Infinity;
  }

  /** Takes out every node due at `nowMs` (its instant not after it); a place may come more than once, or be -1. */
  takeDue(nowMs: number, into: number[]): void {
    while (this.at.length > 0 && this.at[0] <= nowMs) {
      into.push(this.place[0]);
      this.popTop();
    }
  }

  /**
   * Moves every node to its place in the next index (`placeIn[place]`, -1 for a node that went:
   * taken out later as -1, which the caller skips). The instants are unchanged, so the heap holds.
   */
  renumber(placeIn: Int32Array): void {
    const { place } = this;
    for (let i = 0; i < place.length; i++) place[i] = place[i] < 0 ? -1 : placeIn[place[i]];
  }

  private popTop(): void {
    const { at, place } = this;
    const lastAt = at.pop()!;
    const lastPlace = place.pop()!;
    const n = at.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const c = l + 1 < n && at[l + 1] < at[l] ? l + 1 : l;
      if (at[c] >= lastAt) break;
      at[i] = at[c];
      place[i] = place[c];
      i = c;
    }
    at[i] = lastAt;
    place[i] = lastPlace;
  }
}
