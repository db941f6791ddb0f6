// SPDX-License-Identifier: Apache-2.0
// The page's side of the kpol workers. Two instances of the same worker: one answers checks
// and formatting (fast, every keystroke), the other computes previews (a week of evaluations)
// so a preview never delays markers. Checks are debounced by coalescing: at most one is in
// flight and only the newest text waits behind it, so a burst of keystrokes costs one check
// per round trip, and a single keystroke is checked at once. A check carries only the edits
// made since the previous one (edit-log.ts); the worker keeps the text (doc-mirror.ts). Its
// answer is read from shared memory in the next animation frame when it is there by then
// (answer-slot.ts), else taken from the worker's message.
import type { Diagnostic } from '../../grammar/diagnostic.js';
import type { PolicySource } from '../../src/core/policy/load.js';
import type { Preview } from './analysis.js';
import { AnswerSlot } from './answer-slot.js';
import { EditLog, type ContentChange } from './edit-log.js';
import type { ClusterData, EditedDoc, FromWorker, ToWorker } from './protocol.js';
import KpolWorker from './kpol.worker.ts?worker';

const PREVIEW_DELAY_MS = 250;

export interface WorkerCallbacks {
  diagnostics(d: Diagnostic[], seq: number): void;
  preview(p: Preview): void;
  failed(message: string): void;
}

/** The edited document, read when a check is sent (Monaco's ITextModel has these methods). */
export interface CheckedModel {
  getVersionId(): number;
  getValueLength(): number;
  getValue(): string;
}

export interface CheckSource {
  fileName: string;
  /** The same array until the other sources change: only then is it sent again. */
  others: PolicySource[];
  model: CheckedModel;
}

export class KpolWorkers {
  private readonly checker = new KpolWorker();
  private readonly previewer = new KpolWorker();
  private seq = 0;
  private inFlight = false;
  private queued: { seq: number; source: CheckSource } | undefined;
  private readonly log = new EditLog();
  private sentOthers: PolicySource[] | undefined;
  private lastSent: CheckSource | undefined;
  private resending = false;
  private previewTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly waiting = new Map<number, (m: FromWorker) => void>();
  private readonly slot = AnswerSlot.create();
  private inFlightSeq = 0;
  /** The newest check whose answer was delivered (from shared memory or by message). */
  private delivered = 0;
  private frameRequested = false;
  /** How checks were answered: read from shared memory in a frame, or by the worker's message. */
  readonly answeredBy = { slot: 0, message: 0 };
  /** Off: answers come by message only (the benchmark's baseline). */
  readFromSlot = true;

  constructor(private readonly cb: WorkerCallbacks) {
    const onMessage = (ev: MessageEvent<FromWorker>) => this.receive(ev.data);
    this.checker.onmessage = onMessage;
    this.previewer.onmessage = onMessage;
    if (this.slot) this.checker.postMessage({ kind: 'slot', buffer: this.slot.buffer } satisfies ToWorker);
  }

  setCluster(cluster: ClusterData): void {
    const m: ToWorker = { kind: 'cluster', cluster };
    this.checker.postMessage(m);
    this.previewer.postMessage(m);
  }

  /** Every change of the checked model, in order, before the check it causes. */
  edited(change: ContentChange): void {
    this.log.record(change);
  }

  /** Requests diagnostics for the model as it is when the request is sent; returns its sequence number. */
  check(source: CheckSource): number {
    const seq = ++this.seq;
    if (this.inFlight) this.queued = { seq, source };
    else this.sendCheck(seq, source);
    return seq;
  }

  /** Requests a preview after typing pauses, of the document as it is then. */
  preview(doc: () => EditedDoc, delayMs = PREVIEW_DELAY_MS): void {
    clearTimeout(this.previewTimer);
    this.previewTimer = setTimeout(
      () => this.previewer.postMessage({ kind: 'preview', seq: ++this.seq, doc: doc() } satisfies ToWorker),
      delayMs,
    );
  }

  format(text: string): Promise<string | undefined> {
    return this.ask(this.checker, { kind: 'format', seq: ++this.seq, text }).then((m) =>
      m.kind === 'format' ? m.text : undefined,
    );
  }

  /**
   * Looks for the in-flight check's answer in the next animation frame. Called from a key
   * press before the editor handles it, the callback runs before the editor's own render in
   * that frame, so markers set from it are drawn with the key (when the worker was done in time).
   */
  readAtNextFrame(): void {
    if (!this.slot || !this.readFromSlot || this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame(() => {
      this.frameRequested = false;
      this.takeFromSlot();
    });
  }

  /** Delivers the in-flight check's answer if the worker has put it in shared memory; true if it did. */
  takeFromSlot(): boolean {
    const seq = this.inFlightSeq;
    const diagnostics = this.inFlight ? this.slot?.read<Diagnostic[]>(seq) : undefined;
    if (!diagnostics) return false;
    this.delivered = seq;
    this.answeredBy.slot++;
    this.resending = false;
    this.cb.diagnostics(diagnostics, seq);
    this.checkDone();
    return true;
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

  private sendCheck(seq: number, source: CheckSource): void {
    this.inFlight = true;
    this.inFlightSeq = seq;
    this.lastSent = source;
    const m = source.model;
    const sync = this.log.take(m.getVersionId(), m.getValueLength(), () => m.getValue());
    const others = source.others === this.sentOthers ? undefined : source.others;
    this.sentOthers = source.others;
    this.checker.postMessage({
      kind: 'check',
      seq,
      fileName: source.fileName,
      sync,
      ...(others && { others }),
    } satisfies ToWorker);
    this.readAtNextFrame();
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
        // The worker may no longer hold the text: the next check sends it whole, at once.
        this.log.reset();
        this.sentOthers = undefined;
        // Only once: a check that fails on the whole text too is the checker's failure, reported above.
        if (!this.queued && this.lastSent && !this.resending) this.queued = { seq: ++this.seq, source: this.lastSent };
        this.resending = !this.resending && this.queued !== undefined;
        return this.checkDone();
      case 'diagnostics':
        // Already delivered from shared memory, or older than an answer that was: the next
        // check may be in flight by now, and even have been answered from shared memory
        // before this message (Chromium holds messages back until the key's frame is drawn).
        if (m.seq <= this.delivered) return;
        this.delivered = m.seq;
        this.answeredBy.message++;
        this.resending = false;
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
    this.sendCheck(q.seq, q.source);
  }
}
