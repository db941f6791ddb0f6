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

  constructor(private readonly recorder: EventRecorder) {}

  /**
   * Runs `publishAll` unless it last ran for the same `key` and each event it published would still be dropped at
   * `nowMs`.
   */
  run(key: object, nowMs: number, publishAll: (publish: Publish, within: Within) => void): void {
    if (this.last !== undefined && this.last.key === key && nowMs <= this.last.through) return;
    let through = Infinity;
    const publish = (event: Omit<RecordedEvent, 'at'>, dedupeMs?: number): number => {
      const until = this.recorder.publish(event, dedupeMs);
      const end = typeof until === 'number' ? until : -Infinity;
      through = Math.min(through, end);
      return end;
    };
    publishAll(publish, (until) => void (through = Math.min(through, until)));
    this.last = { key, through };
  }
}
