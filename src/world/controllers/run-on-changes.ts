// SPDX-License-Identifier: Apache-2.0
// Runs a controller's full reconcile whenever objects it reads change. Bursts coalesce: at most
// one run is in flight and at most one more is queued behind it, so a tick that writes a
// hundred pods costs two reconciles, not a hundred.
import type { ClusterClient, Kind } from '../../core/cluster/client.js';

export interface ChangeLoop {
  stop(): void;
  /** Resolves when no run is in flight or queued. */
  idle(): Promise<void>;
}

export function runOnChanges(
  client: ClusterClient,
  kinds: readonly Kind[],
  reconcile: () => Promise<void>,
  onError: (e: unknown) => void = () => {},
): ChangeLoop {
  let running: Promise<void> | undefined;
  let queued = false;
  let stopped = false;

  const poke = (): void => {
    if (stopped) return;
    if (running) {
      queued = true;
      return;
    }
    running = (async () => {
      do {
        queued = false;
        try {
          await reconcile();
        } catch (e) {
          onError(e);
        }
      } while (queued && !stopped);
      running = undefined;
    })();
  };

  const watches = kinds.map((kind) => client.watch(kind, poke));
  return {
    stop: () => {
      stopped = true;
      for (const w of watches) w.stop();
    },
    idle: async () => {
      while (running) await running;
    },
  };
}
