// SPDX-License-Identifier: Apache-2.0
// The page's EditLog and the worker's DocMirror keep the worker's text equal to the model's
// when only edits are sent: random change events shaped like Monaco's (several edits per
// event, listed from the end of the text back, in the old text's offsets), checks sent only
// now and then (a queued check carries every edit since the last one), whole-text resets;
// and a mirror that is out of step fails with a message naming file and versions.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DocMirror } from '../../editor/src/doc-mirror.js';
import { EditLog, type ContentChange } from '../../editor/src/edit-log.js';

/** A model stand-in: applies edits given in ascending, non-overlapping order, reports them as Monaco does. */
class Model {
  version = 1;
  constructor(public text: string) {}
  apply(edits: Array<{ offset: number; length: number; text: string }>): ContentChange {
    const ordered = [...edits].sort((a, b) => b.offset - a.offset);
    for (const e of ordered) this.text = this.text.slice(0, e.offset) + e.text + this.text.slice(e.offset + e.length);
    this.version++;
    return {
      versionId: this.version,
      isFlush: false,
      changes: ordered.map((e) => ({ rangeOffset: e.offset, rangeLength: e.length, text: e.text })),
    };
  }
  setValue(text: string): ContentChange {
    this.text = text;
    this.version++;
    return { versionId: this.version, isFlush: true, changes: [{ rangeOffset: 0, rangeLength: 0, text }] };
  }
}

const FILE = 'configmap/kpol-system/a/a.kpol';

/** Cuts up to three non-overlapping edits out of the current text from raw numbers. */
function edits(text: string, raw: Array<[number, number, string]>) {
  const out: Array<{ offset: number; length: number; text: string }> = [];
  let from = 0;
  for (const [at, len, ins] of raw) {
    if (from > text.length) break;
    const offset = from + (at % (text.length - from + 1));
    const length = Math.min(len % 4, text.length - offset);
    out.push({ offset, length, text: ins });
    from = offset + length + 1;
  }
  return out;
}

describe('document sync between page and check worker', () => {
  it('the worker holds the model text after any sequence of edits, flushes and sends', () => {
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('edit' as const),
        raw: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('', 'x', '\n', 'budget 5\n', '  ')), {
          minLength: 1,
          maxLength: 3,
        }),
        send: fc.boolean(),
      }),
      fc.record({
        kind: fc.constant('flush' as const),
        text: fc.constantFrom('', 'policy a for nodepool p {\n}\n'),
        send: fc.boolean(),
      }),
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const model = new Model('policy a for nodepool p {\n  budget 1\n}\n');
        const log = new EditLog();
        const mirror = new DocMirror();
        const send = () =>
          mirror.apply({ fileName: FILE, sync: log.take(model.version, model.text.length, () => model.text) }).text;
        expect(send()).toBe(model.text);
        for (const s of steps) {
          log.record(s.kind === 'edit' ? model.apply(edits(model.text, s.raw)) : model.setValue(s.text));
          if (s.send) expect(send()).toBe(model.text);
        }
        expect(send()).toBe(model.text);
      }),
      { numRuns: 300 },
    );
  });

  it('sends the whole text first, then edits only; others only when given', () => {
    const model = new Model('policy a for nodepool p {\n}\n');
    const log = new EditLog();
    expect(log.take(model.version, model.text.length, () => model.text).kind).toBe('full');
    log.record(model.apply([{ offset: 0, length: 0, text: '# hi\n' }]));
    const sync = log.take(model.version, model.text.length, () => {
      throw new Error('the text is not read for an edit');
    });
    expect(sync).toEqual({
      kind: 'edits',
      base: 1,
      version: 2,
      edits: [{ offset: 0, length: 0, text: '# hi\n' }],
      length: model.text.length,
    });
    const mirror = new DocMirror();
    const others = [{ fileName: 'other.kpol', text: 'policy b for nodepool q {\n}\n' }];
    mirror.apply({ fileName: FILE, sync: { kind: 'full', version: 1, text: 'x' }, others });
    expect(mirror.apply({ fileName: FILE, sync: { kind: 'full', version: 2, text: 'y' } }).others).toBe(others);
  });

  it('a mirror out of step refuses the edits and says why', () => {
    const mirror = new DocMirror();
    mirror.apply({ fileName: FILE, sync: { kind: 'full', version: 3, text: 'abc' } });
    expect(() =>
      mirror.apply({ fileName: FILE, sync: { kind: 'edits', base: 4, version: 5, edits: [], length: 3 } }),
    ).toThrow(`edits to ${FILE} version 4, but the worker holds ${FILE} version 3`);
    expect(() =>
      mirror.apply({ fileName: 'other.kpol', sync: { kind: 'edits', base: 3, version: 4, edits: [], length: 3 } }),
    ).toThrow('but the worker holds');
    expect(() =>
      mirror.apply({
        fileName: FILE,
        sync: { kind: 'edits', base: 3, version: 4, edits: [{ offset: 0, length: 1, text: '' }], length: 3 },
      }),
    ).toThrow(`edits to ${FILE} version 4 give 2 characters, not 3`);
  });
});
