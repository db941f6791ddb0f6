// SPDX-License-Identifier: Apache-2.0
// Watch fan-out. Each change is queued as a microtask per watcher, so handlers never run inside
// the write that caused them, and every watcher sees changes in write order (the microtask
// queue is FIFO, also for changes a handler makes while being notified).
import type { Kind, WatchEvent } from '../client.js';

interface Watcher {
  kind: Kind;
  handler: (e: WatchEvent) => void;
  stopped: boolean;
}

export class WatchHub {
  private readonly watchers = new Set<Watcher>();
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
    this.watchers.add(w);
    return {
      stop: () => {
        // Also drops events already queued for this watcher: stop() ends delivery at once.
        w.stopped = true;
        this.watchers.delete(w);
      },
    };
  }

  emit(type: WatchEvent['type'], object: WatchEvent['object']): void {
    for (const w of this.watchers) {
      if (w.kind !== object.kind) continue;
      // The object is frozen: later writes and other handlers cannot change it.
      const event: WatchEvent = { type, object };
      this.pending++;
      queueMicrotask(() => {
        this.pending--;
        if (w.stopped) return;
        try {
          w.handler(event);
        } catch (e) {
          this.onError(e);
        }
      });
    }
  }

  /** Resolves once every queued event has been delivered, including events handlers caused. */
  async idle(): Promise<void> {
    while (this.pending > 0) await new Promise<void>((resolve) => queueMicrotask(resolve));
  }
}
