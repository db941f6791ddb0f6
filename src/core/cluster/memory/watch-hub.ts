// SPDX-License-Identifier: Apache-2.0
// Watch fan-out. Each change is queued as one microtask that hands it to the watchers of its kind
// (as they were at the write), so handlers never run inside the write that caused them, and every
// watcher sees changes in write order (the microtask queue is FIFO, also for changes a handler
// makes while being notified: those are queued behind the change being delivered). One task and
// one event per change, not per watcher: a busy tick writes thousands of objects, each watched by
// a dozen controllers.
import type { Kind, WatchEvent } from '../client.js';

interface Watcher {
  kind: Kind;
  handler: (e: WatchEvent) => void;
  stopped: boolean;
}

export class WatchHub {
  /** Per kind, its watchers in the order they started. */
  private readonly watchers = new Map<Kind, Set<Watcher>>();
  private pending = 0;

  /** `onError` receives a handler's exception; by default it is rethrown outside delivery. */
  constructor(
    private readonly onError: (e: unknown) => void = (e) =>
      queueMicrotask(() => {
        throw e;
      }),
  ) {}

  watch(kind: Kind, handler: (e: WatchEvent) => void): { stop(): void } {
    const w: Watcher = { kind, handler, stopped: false };
    let of = this.watchers.get(kind);
    if (of === undefined) this.watchers.set(kind, (of = new Set()));
    of.add(w);
    return {
      stop: () => {
        // Also drops events already queued for this watcher: stop() ends delivery at once.
        w.stopped = true;
        of.delete(w);
      },
    };
  }

  emit(type: WatchEvent['type'], object: WatchEvent['object'], old?: WatchEvent['object']): void {
    const of = this.watchers.get(object.kind as Kind);
    if (of === undefined || of.size === 0) return;
    // The watchers at the write: one started meanwhile does not see it, as before.
    const targets = [...of];
    // The object is frozen, and so is the event every handler shares: no handler can change what another sees.
    const event: WatchEvent = Object.freeze(type === 'MODIFIED' && old ? { type, object, old } : { type, object });
    this.pending++;
    queueMicrotask(() => {
      this.pending--;
      for (const w of targets) {
        if (w.stopped) continue;
        try {
          w.handler(event);
        } catch (e) {
          this.report(e);
        }
      }
    });
  }

  /** onError, which must not keep the later watchers from the change: if it throws, that surfaces on its own. */
  private report(e: unknown): void {
    try {
      this.onError(e);
    } catch (thrown) {
      queueMicrotask(() => {
        throw thrown;
      });
    }
  }

  /** Resolves once every queued event has been delivered, including events handlers caused. */
  async idle(): Promise<void> {
    while (this.pending > 0) await new Promise<void>((resolve) => queueMicrotask(resolve));
  }
}
