// SPDX-License-Identifier: Apache-2.0
// A batch of deduplicated events published every tick from the same input (the blocked nodes of
// an evaluation reused across quiet ticks): once every event of the batch is inside its dedupe
// window, publishing the same batch again drops all of them, so it is skipped until the first
// window ends. Exact, not approximate: it runs again at the first instant any event would be
// recorded. A recorder that does not report its windows gets every batch.
import { least } from '../least.js';
import type { EventRecorder, EventToPublish } from './recorder.js';

/** Records one event of the batch; returns until when a repeat is dropped (-Infinity: the recorder does not say). */
export type Publish = (event: EventToPublish, dedupeMs?: number) => number;
/** Counts an event the caller knows is still dropped, and so does not publish again, with the end of its window. */
export type Within = (until: number) => void;
/** An event captured as an item (capture), with the dedupe window it was published with. */
type Captured = readonly [event: EventToPublish, dedupeMs: number | undefined];

export class RepeatedBatch {
  private last: { key: object; through: number } | undefined;
  /** The items of the last runItems, until when each item's events are dropped, and the least of those. */
  private lastItems: { items: readonly unknown[]; ends: number[]; through: number } | undefined;

  constructor(private readonly recorder: EventRecorder) {}

  /**
   * Runs `publishAll` unless it last ran for the same `key` and each event it published would still be dropped at
   * `nowMs`.
   */
  run(key: object, nowMs: number, publishAll: (publish: Publish, within: Within) => void): void {
    if (this.last !== undefined && this.last.key === key && nowMs <= this.last.through) return;
    let through = Infinity;
    const publish = this.publisher((end) => (through = Math.min(through, end)));
    publishAll(publish, (until) => void (through = Math.min(through, until)));
    this.last = { key, through };
  }

  /**
   * A batch made of items, each publishing its own events, kept across runs item by item: when
   * the items are the last run's except at some places, only the items at those places and the
   * items whose own window has ended (the least end of the events each last published) are
   * published, in item order — every other item's events would be dropped. `changed(last, items)`
   * gives the places, ascending (same length; undefined: publish every item).
   */
  runItems<T>(
    items: readonly T[],
    nowMs: number,
    changed: (last: readonly T[], items: readonly T[]) => readonly number[] | undefined,
    publishItem: (item: T, publish: Publish) => void,
  ): void {
    const last = this.lastItems as { items: readonly T[]; ends: number[]; through: number } | undefined;
    const places =
      last === undefined || last.items.length !== items.length
        ? undefined
        : last.items === items
          ? []
          : changed(last.items, items);
    let end = Infinity;
    const publish = this.publisher((e) => (end = Math.min(end, e)));
    const run = (i: number): number => {
      end = Infinity;
      publishItem(items[i]!, publish);
      return end;
    };
    if (places === undefined) {
      const ends = items.map((_, i) => run(i));
      this.lastItems = { items, ends, through: least(ends) };
      return;
    }
    const { ends } = last!;
    if (places.length === 0 && nowMs <= last!.through) {
      this.lastItems = { items, ends, through: last!.through };
      return;
    }
    // The changed places and, once some item's window has ended, the items whose window has, in order.
    let k = 0;
    for (let i = 0; i < items.length; i++) {
      const isChanged = k < places.length && places[k] === i;
      if (isChanged) k++;
      if (isChanged || nowMs > ends[i]!) ends[i] = run(i);
    }
    this.lastItems = { items, ends, through: least(ends) };
  }

  /**
   * A recorder that publishes through this batch's and makes each event an item of the batch, as
   * if runItems had published it: `replay` publishes them again. For a caller whose events come
   * from code that publishes one by one (a consolidation method finding nothing to do).
   */
  capture(): EventRecorder {
    const items: Captured[] = [];
    const last = { items, ends: [] as number[], through: Infinity };
    this.lastItems = last;
    const publish = this.publisher((end) => {
      last.ends.push(end);
      last.through = Math.min(last.through, end);
    });
    return {
      publish: (event, dedupeMs) => {
        items.push([event, dedupeMs]);
        return publish(event, dedupeMs);
      },
    };
  }

  /**
   * The captured events again, as runItems over the same items: only those whose window has
   * ended by `nowMs`, or every one when `all` (the reference the equality tests compare with).
   */
  replay(nowMs: number, all = false): void {
    const items = this.lastItems?.items as readonly Captured[] | undefined;
    if (items === undefined) return;
    if (all) this.lastItems = undefined; // no last run: every item is published
    this.runItems(
      items,
      nowMs,
      () => [],
      (item, publish) => void publish(item[0], item[1]),
    );
  }

  /** Publishes through the recorder and hands each event's window end to `seen`. */
  private publisher(seen: (end: number) => void): Publish {
    return (event, dedupeMs) => {
      const until = this.recorder.publish(event, dedupeMs);
      const end = typeof until === 'number' ? until : -Infinity;
      seen(end);
      return end;
    };
  }
}

/** The places where two lists of the same length hold items that are not `same`. */
export function changedPlaces<T>(last: readonly T[], items: readonly T[], same: (a: T, b: T) => boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < items.length; i++) {
    const was = last[i]!;
    const now = items[i]!;
    if (was !== now && !same(was, now)) out.push(i);
  }
  return out;
}
