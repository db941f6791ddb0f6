// SPDX-License-Identifier: Apache-2.0
// The page's side of DocMirror: Monaco's content changes since the check worker last heard
// of the document, turned into one TextSync when a check is actually sent (a check waiting
// behind another one carries every edit made meanwhile).
import type { TextEdit, TextSync } from './protocol.js';

/** The Monaco content-change event, as much of it as this needs. */
export interface ContentChange {
  versionId: number;
  isFlush: boolean;
  changes: ReadonlyArray<{ rangeOffset: number; rangeLength: number; text: string }>;
}

export class EditLog {
  private sent: number | undefined; // the version the worker holds
  private pending: TextEdit[] = [];
  private whole = true;

  record(e: ContentChange): void {
    if (e.isFlush) return this.reset();
    for (const c of e.changes) this.pending.push({ offset: c.rangeOffset, length: c.rangeLength, text: c.text });
  }

  /** Brings the worker from what it holds to `version`; the text is read only when it must be sent whole. */
  take(version: number, length: number, text: () => string): TextSync {
    const sync: TextSync =
      this.whole || this.sent === undefined
        ? { kind: 'full', version, text: text() }
        : { kind: 'edits', base: this.sent, version, edits: this.pending, length };
    this.sent = version;
    this.pending = [];
    this.whole = false;
    return sync;
  }

  /** The next sync sends the whole text (a new document, or a worker that lost track). */
  reset(): void {
    this.whole = true;
    this.pending = [];
  }
}
