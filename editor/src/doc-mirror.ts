// SPDX-License-Identifier: Apache-2.0
// The check worker's copy of the edited document. A keystroke sends only Monaco's edits, not
// the whole text, so the page does not copy a long policy into a message on every key.
import type { PolicySource } from '../../src/core/policy/load.js';
import type { CheckRequest, EditedDoc, TextSync } from './protocol.js';

export class DocMirror {
  private fileName = '';
  private text = '';
  private version: number | undefined;
  private others: PolicySource[] = [];

  /** The document after `request`; throws when its edits do not start from the version held. */
  apply(request: CheckRequest): EditedDoc {
    if (request.others) this.others = request.others;
    this.text = this.synced(request.fileName, request.sync);
    this.fileName = request.fileName;
    this.version = request.sync.version;
    return { fileName: this.fileName, text: this.text, others: this.others };
  }

  private synced(fileName: string, sync: TextSync): string {
    if (sync.kind === 'full') return sync.text;
    if (fileName !== this.fileName || sync.base !== this.version) {
      throw new Error(
        `edits to ${fileName} version ${sync.base}, but the worker holds ${this.fileName} ` +
          `version ${this.version ?? 'none'}`,
      );
    }
    let text = this.text;
    // Monaco lists a change's edits from the end of the text back, each in the old text's offsets.
    for (const e of sync.edits) text = text.slice(0, e.offset) + e.text + text.slice(e.offset + e.length);
    if (text.length !== sync.length)
      throw new Error(
        `edits to ${fileName} version ${sync.version} give ${text.length} characters, not ${sync.length}`,
      );
    return text;
  }
}
