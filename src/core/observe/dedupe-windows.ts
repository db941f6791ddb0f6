// SPDX-License-Identifier: Apache-2.0
// The recorder's dedupe windows: until when a repeat is dropped — of (reason, dedupe values) when an
// event has values, else of (object, reason, message).
// Nested maps keyed by the strings an event already holds, not one key joined per publish:
// joining and hashing a fresh string of ~100 characters was most of a publish's cost, and a
// controller publishes every blocked node's events again each time their windows end.
import type { EventToPublish, InvolvedObject } from './recorder.js';

type ByMessage = Map<string, number>;
type ByReason = Map<string, ByMessage>;

export class DedupeWindows {
  /** Objects with a uid by uid, the others by kind/namespace/name, so a recreated object stays apart. */
  private readonly byUid = new Map<string, ByReason>();
  private readonly byRef = new Map<string, ByReason>();
  /** Events with dedupe values: by reason, then by the values (one string). */
  private readonly byValues: ByReason = new Map();
  /** How many windows are held, ended ones included until a sweep. */
  size = 0;

  /**
   * The end of the window a repeat at `at` falls in (go-cache keeps an item until `now >
   * expiration`, so a repeat exactly at the end falls in it); otherwise opens a window ending at
   * `until` and returns undefined.
   */
  within(event: EventToPublish, at: number, until: number): number | undefined {
    // An event with values is keyed without reading its message (which may be found only on demand).
    const values = event.dedupe;
    const windows = values === undefined ? this.messagesOf(event.object, event.reason) : this.valuesOf(event.reason);
    const key = values === undefined ? event.message : values.length === 1 ? values[0]! : values.join('\u0000');
    const end = windows.get(key);
    if (end !== undefined && at <= end) return end;
    if (end === undefined) this.size++;
    windows.set(key, until);
    return undefined;
  }

  /** Drops the windows that ended before `now`. */
  sweep(now: number): void {
    for (const top of [this.byUid, this.byRef])
      for (const [key, reasons] of top) {
        this.sweepReasons(reasons, now);
        if (reasons.size === 0) top.delete(key);
      }
    this.sweepReasons(this.byValues, now);
  }

  private sweepReasons(reasons: ByReason, now: number): void {
    for (const [reason, windows] of reasons) {
      this.size -= dropEnded(windows, now);
      if (windows.size === 0) reasons.delete(reason);
    }
  }

  private valuesOf(reason: string): ByMessage {
    let windows = this.byValues.get(reason);
    if (windows === undefined) this.byValues.set(reason, (windows = new Map()));
    return windows;
  }

  private messagesOf(o: InvolvedObject, reason: string): ByMessage {
    const top = o.uid ? this.byUid : this.byRef;
    const key = o.uid || `${o.kind}/${o.namespace ?? ''}/${o.name}`;
    let reasons = top.get(key);
    if (reasons === undefined) top.set(key, (reasons = new Map()));
    let messages = reasons.get(reason);
    if (messages === undefined) reasons.set(reason, (messages = new Map()));
    return messages;
  }
}

/** Deletes the windows that ended before `now`; returns how many. */
function dropEnded(messages: ByMessage, now: number): number {
  let dropped = 0;
  for (const [message, end] of messages)
    if (now > end) {
      messages.delete(message);
      dropped++;
    }
  return dropped;
}
