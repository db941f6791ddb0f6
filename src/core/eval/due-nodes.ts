// SPDX-License-Identifier: Apache-2.0
// When each node's facts next move with time, earliest first: the instant its FactValidity ends
// (a consolidateAfter or expireAfter elapsing, a do-not-disrupt duration running out). An
// evaluation of only the changed nodes (evaluate-cluster.ts changedOnly) takes from here the
// nodes whose instant has come and derives them again with the changed ones, so time passing
// one node's threshold costs that node, not a pass over the cluster. Windows are not here: a
// window opening or closing is checked per window (evaluation-span.ts) and makes a whole pass.
//
// A node derived again is pushed with its new instant; its old entry stays until it comes due,
// and then costs one verdict-cache lookup. A whole evaluation starts a new queue. The heap itself
// (DueQueue) also holds when blocked nodes' events are next due (blocked-events.ts).

/** A binary min-heap of (instant, item) pairs: what comes due when. */
export class DueQueue<T> {
  private readonly at: number[] = [];
  protected readonly item: T[] = [];

  /** Notes that `item` is due from `atMs` on (nothing when never). */
  push(atMs: number, item: T): void {
    if (atMs === Infinity) return;
    const { at, item: items } = this;
    let i = at.length;
    at.push(atMs);
    items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (at[parent] <= atMs) break;
      at[i] = at[parent];
      items[i] = items[parent];
      i = parent;
    }
    at[i] = atMs;
    items[i] = item;
  }

  /** Entries held, stale ones among them (an item pushed again, or gone). */
  get size(): number {
    return this.at.length;
  }

  /** The earliest instant anything is due (Infinity when nothing is). */
  next(): number {
    return this.at.length > 0 ? this.at[0] : Infinity;
  }

  /** Takes out every item due at `nowMs` (its instant not after it); an item may come more than once. */
  takeDue(nowMs: number, into: T[]): void {
    while (this.at.length > 0 && this.at[0] <= nowMs) {
      into.push(this.item[0]);
      this.popTop();
    }
  }

  /** takeDue for the items whose instant is before `nowMs` (one at `nowMs` stays). */
  takeBefore(nowMs: number, into: T[]): void {
    while (this.at.length > 0 && this.at[0] < nowMs) {
      into.push(this.item[0]);
      this.popTop();
    }
  }

  private popTop(): void {
    const { at, item } = this;
    const lastAt = at.pop()!;
    const lastItem = item.pop()!;
    const n = at.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const c = l + 1 < n && at[l + 1] < at[l] ? l + 1 : l;
      if (at[c] >= lastAt) break;
      at[i] = at[c];
      item[i] = item[c];
      i = c;
    }
    at[i] = lastAt;
    item[i] = lastItem;
  }
}

/** Nodes by their place in the index; a place may come more than once, or be -1 (a node that went). */
export class DueNodes extends DueQueue<number> {
  /**
   * Moves every node to its place in the next index (`placeIn[place]`, -1 for a node that went:
   * taken out later as -1, which the caller skips). The instants are unchanged, so the heap holds.
   */
  renumber(placeIn: Int32Array): void {
    const { item: place } = this;
    for (let i = 0; i < place.length; i++) place[i] = place[i] < 0 ? -1 : placeIn[place[i]];
  }
}
