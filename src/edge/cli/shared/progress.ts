// SPDX-License-Identifier: Apache-2.0
// A one-line progress bar for long CLI runs (`kpol simulate`): redrawn in place with `\r`,
// percent and ETA. When the output is not a terminal (CI logs, pipes, files) it prints
// nothing at all, so redirected output stays clean.

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(chunk: string): unknown;
}

export interface ProgressOptions {
  total: number;
  label?: string;
  stream?: ProgressStream;
  /** Wall clock in ms; injectable for tests. */
  now?: () => number;
  /** Redraw at most this often, except for the final state. Default 100 ms. */
  minIntervalMs?: number;
}

export interface Progress {
  update(done: number): void;
  /** Draws the final state and ends the line. */
  finish(): void;
}

/** `0:07`, `12:30`, `1:02:03`. */
export function formatEta(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return hh > 0 ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

export function createProgress(o: ProgressOptions): Progress {
  const stream = o.stream ?? process.stdout;
  if (!stream.isTTY) return { update() {}, finish() {} };
  const now = o.now ?? Date.now;
  const started = now();
  const total = Math.max(0, o.total);
  const minInterval = o.minIntervalMs ?? 100;
  let lastDraw = -Infinity;
  let last = 0;
  let finished = false;

  const draw = (done: number): void => {
    const fraction = total === 0 ? 1 : Math.min(1, Math.max(0, done / total));
    const elapsed = now() - started;
    const eta =
      done > 0 && fraction < 1
        ? `ETA ${formatEta((elapsed * (total - done)) / done)}`
        : fraction >= 1
          ? `done in ${formatEta(elapsed)}`
          : 'ETA --:--';
    const label = o.label ? `${o.label} ` : '';
    const tail = ` ${String(Math.floor(fraction * 100)).padStart(3)}% ${eta}`;
    const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - label.length - tail.length - 3));
    const filled = Math.round(fraction * width);
    // \x1b[K clears what a longer previous line left behind.
    stream.write(`\r${label}[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]${tail}\x1b[K`);
    lastDraw = now();
  };

  return {
    update(done: number) {
      if (finished) return;
      last = done;
      if (done >= total || now() - lastDraw >= minInterval) draw(done);
    },
    finish() {
      if (finished) return;
      finished = true;
      draw(Math.max(last, total));
      stream.write('\n');
    },
  };
}
