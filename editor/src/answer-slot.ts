// SPDX-License-Identifier: Apache-2.0
// The check worker's newest answer in shared memory, so the page can read it inside its next
// animation frame. In Chromium a worker's message that arrives just after a key press waits
// until the frame showing the key has been drawn (seen in a trace of the benchmark: answer
// posted 3 ms after keydown, handled at 13 ms, after an 8 ms frame, with the page idle in
// between), although the answer is ready a millisecond or two after the key. The message
// is still sent: it is the answer whenever the slot is not there (the page is not
// cross-origin isolated), the answer is too large for it, or the frame came first.
//
// Layout: two Int32 words — the answer's sequence number and its byte length — then UTF-8
// JSON. The writer clears the sequence number before writing and sets it last, so a reader
// that sees the number it wants before and after copying has a whole answer.

const SEQ = 0;
const LENGTH = 1;
const HEADER_BYTES = 8;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** 1 MiB: a thousand diagnostics are about 300 kB of JSON. */
export const SLOT_BYTES = 1 << 20;

export class AnswerSlot {
  private readonly header: Int32Array;
  private readonly body: Uint8Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.header = new Int32Array(buffer, 0, 2);
    this.body = new Uint8Array(buffer, HEADER_BYTES);
  }

  /** A slot to share with a worker; undefined where the page may not share memory. */
  static create(bytes = SLOT_BYTES): AnswerSlot | undefined {
    if (
      typeof SharedArrayBuffer === 'undefined' ||
      (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === false
    )
      return undefined;
    return new AnswerSlot(new SharedArrayBuffer(HEADER_BYTES + bytes));
  }

  /** Publishes the answer to request `seq` (> 0); false, and the slot left empty, when it does not fit. */
  write(seq: number, value: unknown): boolean {
    Atomics.store(this.header, SEQ, 0);
    const bytes = encoder.encode(JSON.stringify(value));
    if (bytes.length > this.body.length) return false;
    this.body.set(bytes);
    Atomics.store(this.header, LENGTH, bytes.length);
    Atomics.store(this.header, SEQ, seq);
    return true;
  }

  /** The answer to request `seq` when the slot holds it, whole; otherwise undefined. */
  read<T>(seq: number): T | undefined {
    if (seq <= 0 || Atomics.load(this.header, SEQ) !== seq) return undefined;
    // TextDecoder refuses views of shared memory: copy out first.
    const bytes = this.body.slice(0, Atomics.load(this.header, LENGTH));
    if (Atomics.load(this.header, SEQ) !== seq) return undefined;
    return JSON.parse(decoder.decode(bytes)) as T;
  }
}
