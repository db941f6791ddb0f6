// SPDX-License-Identifier: Apache-2.0
// The editor in Chromium against a real `kpol serve`: time from a keystroke (keydown) to the
// updated markers for a 1,000-line policy, with baselines from the same run — the same keys
// with every answer taken from the worker's message (no shared memory), a no-op round trip to
// the same worker, the same (incremental) check in Node, and the whole-text parse +
// check in Node — and the editor bundle's size.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { connect, diagnosticsFor } from '../../editor/src/analysis.js';
import { IncrementalChecker } from '../../editor/src/incremental-check.js';
import { ensureChromium, launchBrowser } from '../editor/browser.js';
import { ensureEditorBuilt } from '../editor/editor-build.js';
import { placeCursor, setText } from '../editor/page.js';
import { startServe } from '../editor/serve-process.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { generatePolicy } from './generate.js';
import type { Line } from './reconciler.js';

const DIST = new URL('../../editor/dist/', import.meta.url).pathname;
const KEYSTROKES = 41;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function bundleSize(): { total: number; js: number; jsGzip: number } {
  const files = readdirSync(join(DIST, 'assets')).map((f) => join(DIST, 'assets', f));
  const js = files.filter((f) => f.endsWith('.js'));
  return {
    total: files.reduce((s, f) => s + statSync(f).size, 0),
    js: js.reduce((s, f) => s + statSync(f).size, 0),
    jsGzip: js.reduce((s, f) => s + gzipSync(readFileSync(f)).length, 0),
  };
}

export async function editorBench(): Promise<Line[]> {
  ensureChromium();
  await ensureEditorBuilt();
  const served = await startServe(['--speed', '60']);
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    await page.goto(served.editorUrl);
    await page.waitForSelector('body[data-ready]');
    const text = generatePolicy(1000);
    const lines = text.split('\n').length;
    await setText(page, text);
    await page.evaluate(() => {
      const w = globalThis as any;
      w.benchTimes = [];
      w.benchMarkers = 0;
      addEventListener('keydown', () => (w.benchT0 = performance.now()), true);
      addEventListener('kpol-markers', () => {
        w.benchMarkers++;
        if (w.benchT0 !== undefined) w.benchTimes.push(performance.now() - w.benchT0);
        w.benchT0 = undefined;
      });
    });
    const slotAnswers = () => page.evaluate(() => (globalThis as any).kpolEditor.workers.answeredBy.slot as number);
    const slotBefore = await slotAnswers();
    // Typing at the end of a statement line: a space, then deleting it, so the text stays the same policy.
    const lineNo = text.split('\n').findIndex((l) => l.startsWith('  budget 5')) + 1;
    await placeCursor(page, lineNo, '  budget 5'.length + 1);
    const typeKeys = async () => {
      await page.evaluate(() => ((globalThis as any).benchTimes = []));
      for (let i = 0; i < KEYSTROKES; i++) {
        const seen = await page.evaluate(() => (globalThis as any).benchMarkers);
        await page.keyboard.press(i % 2 === 0 ? 'Space' : 'Backspace');
        await page.waitForFunction((n) => (globalThis as any).benchMarkers > n, seen);
      }
      return median(await page.evaluate(() => (globalThis as any).benchTimes as number[]));
    };
    const keystroke = await typeKeys();
    const isolated = await page.evaluate(() => crossOriginIsolated);
    const inFrame = (await slotAnswers()) - slotBefore;
    // The baseline: the same keys with every answer taken from the worker's message.
    await page.evaluate(() => ((globalThis as any).kpolEditor.workers.readFromSlot = false));
    const byMessage = await typeKeys();
    const pings = await page.evaluate(async (n) => {
      const k = (globalThis as any).kpolEditor;
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await k.workers.ping();
        out.push(performance.now() - t);
      }
      return out;
    }, KEYSTROKES);
    const ping = median(pings);

    // The same check in Node, on the same cluster and text.
    const cluster = await (
      await fetch(`${served.url}/api/editor/cluster`, { headers: { Authorization: `Bearer ${served.token}` } })
    ).json();
    const connected = connect(cluster);
    const doc = { fileName: 'ConfigMap kpol-system/bench bench.kpol', text, others: [] };
    const nodeTimes: number[] = [];
    const checker = new IncrementalChecker();
    for (let i = 0; i < KEYSTROKES; i++) {
      const t = performance.now();
      diagnosticsFor(
        { ...doc, text: i % 2 ? text : text.replace('  budget 5\n', '  budget 5 \n') },
        connected,
        checker,
      );
      nodeTimes.push(performance.now() - t);
    }
    const nodeCheck = median(nodeTimes);
    const fullTimes: number[] = [];
    for (let i = 0; i < 11; i++) {
      const t = performance.now();
      loadPolicies([{ fileName: doc.fileName, text }], cluster.now);
      fullTimes.push(performance.now() - t);
    }
    const fullCheck = median(fullTimes);
    const size = bundleSize();
    return [
      {
        name: `editor: keystroke → markers (${lines} lines, Chromium)`,
        value: `${keystroke.toFixed(1)} ms`,
        goal: '< 16 ms median',
        ratio:
          (isolated
            ? `${inFrame}/${KEYSTROKES} answers read in the key's own frame (shared memory); `
            : 'not cross-origin isolated: every answer by message; ') +
          `baselines: answers by message only ${byMessage.toFixed(1)} ms (${(byMessage / keystroke).toFixed(2)}×); ` +
          `worker no-op round trip ${ping.toFixed(2)} ms (${(keystroke / ping).toFixed(1)}×); ` +
          `same check in Node ${nodeCheck.toFixed(1)} ms (${(keystroke / nodeCheck).toFixed(2)}×); ` +
          `whole-text parse + check in Node ${fullCheck.toFixed(1)} ms`,
      },
      {
        name: 'editor: bundle size (editor/dist/assets)',
        value: `${(size.total / 2 ** 20).toFixed(2)} MiB`,
        goal: '≤ 1.5 MiB JS gz',
        ratio: `JavaScript ${(size.js / 2 ** 20).toFixed(2)} MiB, ${(size.jsGzip / 2 ** 20).toFixed(2)} MiB gzipped`,
      },
    ];
  } finally {
    await browser.close();
    await served.stop();
  }
}
