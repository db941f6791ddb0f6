// SPDX-License-Identifier: Apache-2.0
// The kpol web worker: the same parser, checker, formatter and evaluator as the CLI, off the
// page's main thread. Checks answer at once; previews (a week of evaluations) are dropped when
// a newer one is already queued, so typing never waits behind a stale preview.
import { formatSource } from '../../grammar/format.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { connect, diagnosticsFor, Parsers, previewFor, type Connected } from './analysis.js';
import { AnswerSlot } from './answer-slot.js';
import { DocMirror } from './doc-mirror.js';
import { IncrementalChecker } from './incremental-check.js';
import type { FromWorker, ToWorker } from './protocol.js';

let cluster: Connected | undefined;
const evaluator = new Evaluator();
const parsers = new Parsers();
const checker = new IncrementalChecker();
const mirror = new DocMirror();
let newestPreview = 0;
let slot: AnswerSlot | undefined;

const post = (m: FromWorker) => (self as unknown as Worker).postMessage(m);

self.onmessage = async (ev: MessageEvent<ToWorker>) => {
  const m = ev.data;
  try {
    switch (m.kind) {
      case 'cluster':
        cluster = connect(m.cluster);
        return;
      case 'slot':
        slot = new AnswerSlot(m.buffer);
        return;
      case 'check': {
        const diagnostics = diagnosticsFor(mirror.apply(m), cluster, checker);
        slot?.write(m.seq, diagnostics);
        return post({ kind: 'diagnostics', seq: m.seq, diagnostics });
      }
      case 'preview': {
        newestPreview = m.seq;
        // Yield once so that checks queued behind this preview run first.
        await new Promise((r) => setTimeout(r, 0));
        if (m.seq !== newestPreview || !cluster) return;
        const preview = await previewFor(m.doc, cluster, evaluator, parsers);
        if (preview && m.seq === newestPreview) post({ kind: 'preview', seq: m.seq, preview });
        return;
      }
      case 'format':
        return post({ kind: 'format', seq: m.seq, text: formatSource(m.text).value });
      case 'ping':
        return post({ kind: 'pong', seq: m.seq });
      default: {
        const never: never = m;
        throw new Error(`unknown message ${JSON.stringify(never)}`);
      }
    }
  } catch (e) {
    post({ kind: 'failed', seq: 'seq' in m ? m.seq : 0, message: (e as Error).message, during: m.kind });
  }
};
