// SPDX-License-Identifier: Apache-2.0
// The page's side of the kpol workers. Two instances of the same worker: one answers checks
// and formatting (fast, every keystroke), the other computes previews (a week of evaluations)
// so a preview never delays markers. Checks are debounced by coalescing: at most one is in
// flight and only the newest text waits behind it, so a burst of keystrokes costs one check
// per round trip, and a single keystroke is checked at once.
import type { Diagnostic } from '../../grammar/diagnostic.js';
import type { Preview } from './analysis.js';
import type { ClusterData, EditedDoc, FromWorker, ToWorker } from './protocol.js';
import KpolWorker from './kpol.worker.ts?worker';

const PREVIEW_DELAY_MS = 250;

export interface WorkerCallbacks {
  diagnostics(d: Diagnostic[], seq: number): void;
  preview(p: Preview): void;
  failed(message: string): void;
}

export class KpolWorkers {
  private readonly checker = new KpolWorker();
  private readonly previewer = new KpolWorker();
  private seq = 0;
  private inFlight = false;
  private queued: { seq: number; doc: EditedDoc } | undefined;
  private previewTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly waiting = new Map<number, (m: FromWorker) => void>();

  constructor(private readonly cb: WorkerCallbacks) {
    const onMessage = (ev: MessageEvent<FromWorker>) => this.receive(ev.data);
    this.checker.onmessage = onMessage;
    this.previewer.onmessage = onMessage;
  }

  setCluster(cluster: ClusterData): void {
    const m: ToWorker = { kind: 'cluster', cluster };
    this.checker.postMessage(m);
    this.previewer.postMessage(m);
  }

  /** Requests diagnostics for `doc`; returns the request's sequence number. */
  check(doc: EditedDoc): number {
    const seq = ++this.seq;
    if (this.inFlight) this.queued = { seq, doc };
    else this.sendCheck(seq, doc);
    return seq;
  }

  /** Requests a preview after typing pauses. */
  preview(doc: EditedDoc, delayMs = PREVIEW_DELAY_MS): void {
    clearTimeout(this.previewTimer);
    this.previewTimer = setTimeout(() => this.previewer.postMessage({ kind: 'preview', seq: ++this.seq, doc } satisfies ToWorker), delayMs);
  }

  format(text: string): Promise<string | undefined> {
    return this.ask(this.checker, { kind: 'format', seq: ++this.seq, text }).then((m) => (m.kind === 'format' ? m.text : undefined));
  }

  /** A no-op round trip through the check worker (the benchmark's baseline). */
  ping(): Promise<void> {
    return this.ask(this.checker, { kind: 'ping', seq: ++this.seq }).then(() => undefined);
  }

  private ask(w: Worker, m: ToWorker & { seq: number }): Promise<FromWorker> {
    return new Promise((resolve) => {
      this.waiting.set(m.seq, resolve);
      w.postMessage(m);
    });
  }

  private sendCheck(seq: number, doc: EditedDoc): void {
    this.inFlight = true;
    this.checker.postMessage({ kind: 'check', seq, doc } satisfies ToWorker);
  }

  private receive(m: FromWorker): void {
    const waiter = this.waiting.get(m.seq);
    if (waiter) {
      this.waiting.delete(m.seq);
      return waiter(m);
    }
    switch (m.kind) {
      case 'failed':
        this.cb.failed(`${m.during}: ${m.message}`);
        if (m.during !== 'check') return;
        return this.checkDone();
      case 'diagnostics':
        this.cb.diagnostics(m.diagnostics, m.seq);
        return this.checkDone();
      case 'preview':
        return this.cb.preview(m.preview);
      case 'format':
      case 'pong':
        return;
      default: {
        const never: never = m;
        throw new Error(`unknown message ${JSON.stringify(never)}`);
      }
    }
  }

  private checkDone(): void {
    this.inFlight = false;
    if (!this.queued) return;
    const q = this.queued;
    this.queued = undefined;
    this.sendCheck(q.seq, q.doc);
  }
}
