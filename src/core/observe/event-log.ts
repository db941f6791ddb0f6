// SPDX-License-Identifier: Apache-2.0
// The in-memory EventRecorder: Karpenter's dedupe (the first event of a key opens a window in
// which repeats are dropped; repeats do not extend it), then a bounded history for the status
// page, tests and the timeline, and listeners for live consumers.
import type { Clock } from '../clock.js';
import { DedupeWindows } from './dedupe-windows.js';
import { DEFAULT_DEDUPE_MS } from './event-reasons.js';
import type { EventRecorder, EventToPublish, RecordedEvent } from './recorder.js';

export interface EventFilter {
  reason?: string;
  type?: RecordedEvent['type'];
  kind?: string;
  name?: string;
  namespace?: string;
  /** Only events at or after this epoch ms. */
  since?: number;
  /** At most this many, the most recent ones. */
  limit?: number;
}

export type EventListener = (event: RecordedEvent) => void;

export interface EventLogOptions {
  /** History size; the oldest events are dropped first. Default 1000. */
  capacity?: number;
}

export class EventLog implements EventRecorder {
  private readonly capacity: number;
  private readonly ring: RecordedEvent[] = [];
  private start = 0; // index of the oldest event once the ring is full
  private readonly windows = new DedupeWindows();
  private readonly listeners = new Set<EventListener>();
  private dropped = 0;
  /** Sweep expired windows once this many are held; doubles with the live ones, so sweeps stay amortised O(1). */
  private sweepAt: number;

  constructor(
    private readonly clock: Clock,
    options: EventLogOptions = {},
  ) {
    this.capacity = Math.max(1, options.capacity ?? 1000);
    this.sweepAt = 4 * this.capacity;
  }

  publish(event: EventToPublish, dedupeMs: number = DEFAULT_DEDUPE_MS): number {
    const at = this.clock.now();
    const until = this.windows.within(event, at, at + dedupeMs);
    if (until !== undefined) {
      this.dropped++;
      return until;
    }
    if (this.windows.size > this.sweepAt) this.sweep(at);
    // Field by field: a spread of the event with `object` and `at` overridden is V8's slow copy, and
    // events are published every tick (the replays of blocked and unconsolidatable nodes).
    const recorded: RecordedEvent = {
      type: event.type,
      reason: event.reason,
      message: event.message,
      object: { ...event.object },
      at,
    };
    if (this.ring.length < this.capacity) this.ring.push(recorded);
    else {
      this.ring[this.start] = recorded;
      this.start = (this.start + 1) % this.capacity;
    }
    for (const l of this.listeners) l(recorded);
    return at + dedupeMs;
  }

  /** Recorded events, oldest first. */
  list(filter: EventFilter = {}): RecordedEvent[] {
    const all = [...this.ring.slice(this.start), ...this.ring.slice(0, this.start)];
    const hits = all.filter(
      (e) =>
        (filter.reason === undefined || e.reason === filter.reason) &&
        (filter.type === undefined || e.type === filter.type) &&
        (filter.kind === undefined || e.object.kind === filter.kind) &&
        (filter.name === undefined || e.object.name === filter.name) &&
        (filter.namespace === undefined || e.object.namespace === filter.namespace) &&
        (filter.since === undefined || e.at >= filter.since),
    );
    return filter.limit === undefined ? hits : hits.slice(Math.max(0, hits.length - filter.limit));
  }

  /** Calls `listener` for every event recorded from now on; returns the unsubscribe function. */
  onEvent(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Events suppressed by dedupe since construction. */
  get deduplicated(): number {
    return this.dropped;
  }

  private sweep(now: number): void {
    this.windows.sweep(now);
    this.sweepAt = Math.max(4 * this.capacity, 2 * this.windows.size);
  }
}
