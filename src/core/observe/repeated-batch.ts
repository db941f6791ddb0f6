// SPDX-License-Identifier: Apache-2.0
// A batch of deduplicated events published every tick from the same input (the blocked nodes of
// an evaluation reused across quiet ticks): once every event of the batch is inside its dedupe
// window, publishing the same batch again drops all of them, so it is skipped until the first
// window ends. Exact, not approximate: it runs again at the first instant any event would be
// recorded. A recorder that does not report its windows gets every batch.
import type { EventRecorder, RecordedEvent } from './recorder.js';

/** Records one event of the batch; returns until when a repeat is dropped (-Infinity: the recorder does not say). */
export type Publish = (event: Omit<RecordedEvent, 'at'>, dedupeMs?: number) => number;
/** Counts an event the caller knows is still dropped, and so does not publish again, with the end of its window. */
export type Within = (until: number) => void;

export class RepeatedBatch {
  private last: { key: object; through: number } | undefined;
  /** The items of the last runItems, and until when every event published for them since is dropped. */
  private lastItems: { items: readonly unknown[]; through: number } | undefined;

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
   * the items are the last run's except at some places and every event published since is still
   * inside its window at `nowMs`, only the items at those places are published — every other
   * item's events would be dropped. `changed(last, items)` gives the places (same length;
   * undefined: publish every item). The batch's window end stays the least of all ends seen since
   * the last whole run (never later than the exact one), so a whole run comes no later than it
   * would for `run`.
   */
  runItems<T>(
    items: readonly T[],
    nowMs: number,
    changed: (last: readonly T[], items: readonly T[]) => readonly number[] | undefined,
    publishItem: (item: T, publish: Publish) => void,
  ): void {
    const last = this.lastItems as { items: readonly T[]; through: number } | undefined;
    let through = Infinity;
    const publish = this.publisher((end) => (through = Math.min(through, end)));
    const places =
      last === undefined || nowMs > last.through || last.items.length !== items.length
        ? undefined
        : last.items === items
          ? []
          : changed(last.items, items);
    if (places !== undefined) {
      for (const i of places) publishItem(items[i]!, publish);
      this.lastItems = { items, through: Math.min(last!.through, through) };
      return;
    }
    for (const item of items) publishItem(item, publish);
    this.lastItems = { items, through };
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
