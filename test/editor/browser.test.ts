// SPDX-License-Identifier: Apache-2.0
// The editor in Debian's Chromium against a real `kpol serve` (the embedded simulated cluster,
// the demo policy in ConfigMap kpol-system/business-hours). Screenshots go to
// test-artifacts/editor/.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYWORD_DOCS } from '../../grammar/keyword-docs.js';
import { formatSource } from '../../grammar/format.js';
import { launchBrowser, type Browser } from './browser.js';
import { errors, placeCursor, pointAt, quickFixMenu, screenshot, setText, suggestions } from './page.js';
import { startServe, type Served } from './serve-process.js';

const POLICY = readFileSync(new URL('../../rules/examples/business-hours.kpol', import.meta.url), 'utf8');
const AT = { namespace: 'kpol-system', name: 'business-hours', key: 'business-hours.kpol' };

let served: Served;
let browser: Browser;
let page: Page;

function api(
  method: string,
  path: string,
  o: { body?: unknown; token?: string | null; origin?: string } = {},
): Promise<{ status: number; json: any }> {
  const body = o.body === undefined ? undefined : JSON.stringify(o.body);
  const token = o.token === undefined ? served.token : o.token;
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, served.url),
      {
        method,
        headers: {
          ...(token !== null && { Authorization: `Bearer ${token}` }),
          ...(body && { 'Content-Type': 'application/json' }),
          ...(o.origin && { Origin: o.origin }),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, json: text.startsWith('{') ? JSON.parse(text) : text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const stored = async () =>
  (await api('GET', '/api/editor/policies')).json.policies.find((p: any) => p.name === AT.name);

async function openEditor(): Promise<void> {
  await page.goto(served.editorUrl);
  await page.waitForSelector('body[data-ready]');
}

beforeAll(async () => {
  served = await startServe(['--speed', '60']);
  // The demo's Nodes register a few seconds after start; the page reads the cluster when it
  // opens (then every 10 s), and completion offers the label keys of the Nodes it has read.
  for (
    let i = 0;
    i < 100 && !(await api('GET', '/api/editor/cluster')).json.objects.some((o: any) => o.kind === 'Node');
    i++
  )
    await new Promise((r) => setTimeout(r, 200));
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await openEditor();
});
afterAll(async () => {
  await browser?.close();
  await served?.stop();
});

describe('the kpol editor in Chromium', () => {
  it('loads the policy from its ConfigMap and shows the preview', async () => {
    expect(served.editorUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/editor\/#token=/);
    expect(await page.evaluate(() => (globalThis as any).kpolEditor.model.getValue())).toBe(POLICY);
    await page.waitForSelector('#now table.pools tr[data-pool="default"]');
    expect(await page.textContent('#now table.pools tr[data-pool="default"] td:nth-child(2)')).toBe('business-hours');
    await screenshot(page, '01-loaded');
  });

  it('typing an error shows a marker at its line and column; fixing it clears the marker', async () => {
    const text = 'policy typing for nodepool default {\n  budget 1 for Drifted\n}\n';
    await setText(page, text);
    expect(await errors(page)).toEqual([]);
    const line = 2;
    const column = text.split('\n')[1].indexOf('Drifted') + 1;
    await placeCursor(page, line, column + 'Drifted'.length);
    await page.keyboard.type('x');
    await page.waitForFunction(() =>
      (globalThis as any).kpolEditor.monaco.editor
        .getModelMarkers({ owner: 'kpol' })
        .some((m: any) => m.severity === 8),
    );
    const [m, ...rest] = await errors(page);
    expect(rest).toEqual([]);
    expect(m).toEqual(expect.objectContaining({ line, column, code: expect.stringMatching(/^KPOL2\d{3}$/) }));
    expect(m.message).toContain('Driftedx');
    await page.waitForSelector('.squiggly-error');
    expect(await page.textContent('#problems li.error .loc')).toBe(`${line}:${column}`);
    await screenshot(page, '02-marker');

    await page.keyboard.press('Backspace');
    await page.waitForFunction(
      () =>
        !(globalThis as any).kpolEditor.monaco.editor
          .getModelMarkers({ owner: 'kpol' })
          .some((m: any) => m.severity === 8),
    );
    // Monaco removes the squiggle in its next frame after the markers change.
    await page.waitForSelector('.squiggly-error', { state: 'detached' });
    expect(await page.locator('#problems li.error').count()).toBe(0);
  });

  it(
    'several edits in one change (a quick fix, a format) reach the checker as they are, not as ' + 'the whole text',
    async () => {
      await setText(page, 'policy multi for nodepool default {\n  budget 1 for Drifted\n  budget 2 for Empty\n}\n');
      await page.evaluate(() => {
        const { model, monaco } = (globalThis as any).kpolEditor;
        model.applyEdits([
          { range: new monaco.Range(2, 23, 2, 23), text: 'x' },
          { range: new monaco.Range(3, 21, 3, 21), text: 'q' },
        ]);
      });
      await page.waitForFunction(
        () =>
          (globalThis as any).kpolEditor.monaco.editor
            .getModelMarkers({ owner: 'kpol' })
            .filter((m: any) => m.severity === 8).length === 2,
      );
      expect((await errors(page)).map((m) => [m.line, m.column, m.message.match(/`\w+`/)?.[0]])).toEqual([
        [2, 16, '`Driftedx`'],
        [3, 16, '`Emptyq`'],
      ]);
      // A worker that lost track of the text would fail the check first (and then be sent it whole).
      expect(await page.textContent('#status')).not.toContain('checker failed');
    },
  );

  it('reads a check’s answer from memory shared with the worker, without waiting for its message', async () => {
    await setText(page, 'policy shared for nodepool default {\n  budget 1 for Drifted\n}\n');
    const got = await page.evaluate(() => {
      const { model, monaco, workers } = (globalThis as any).kpolEditor;
      const before = { ...workers.answeredBy };
      model.applyEdits([{ range: new monaco.Range(2, 23, 2, 23), text: 'x' }]);
      // The page's thread stays busy from the edit to the read, so no message from the worker
      // can have been handled: only shared memory can carry the answer.
      const t0 = performance.now();
      let taken = false;
      while (!taken && performance.now() - t0 < 10_000) taken = workers.takeFromSlot();
      const errors = monaco.editor
        .getModelMarkers({ owner: 'kpol' })
        .filter((m: any) => m.severity === 8)
        .map((m: any) => [m.startLineNumber, m.startColumn, m.message.split('\n')[0]]);
      return {
        isolated: crossOriginIsolated,
        taken,
        errors,
        slot: workers.answeredBy.slot - before.slot,
        message: workers.answeredBy.message - before.message,
      };
    });
    expect(got).toEqual({
      isolated: true,
      taken: true,
      errors: [[2, 16, expect.stringContaining('Driftedx')]],
      slot: 1,
      message: 0,
    });
    // The worker's message for that check comes later and is dropped; the next check is answered as usual.
    await setText(page, 'policy shared for nodepool default {\n  budget 1 for Drifted\n}\n');
    expect(await errors(page)).toEqual([]);
  });

  it('offers the "did you mean" quick fix', async () => {
    await setText(page, 'policy fix for nodepool default {\n  budget 1 for Drifed\n}\n');
    expect((await errors(page))[0].message).toMatch(/Drifed/);
    await placeCursor(page, 2, 18);
    expect(await quickFixMenu(page)).toContain('Replace with `Drifted`');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => (globalThis as any).kpolEditor.model.getValue().includes('for Drifted\n'));
    await page.waitForFunction(
      () =>
        !(globalThis as any).kpolEditor.monaco.editor
          .getModelMarkers({ owner: 'kpol' })
          .some((m: any) => m.severity === 8),
    );
  });

  it('offers quick fixes for a misspelt keyword and for one value inside a schedule', async () => {
    await setText(
      page,
      'policy fixes for nodepool default {\n  budjet 1\n  budget 0 during "0 9 * * mon-fry" for 8h\n}\n',
    );
    expect((await errors(page)).map((e: { message: string }) => e.message.split('\n')[0])).toEqual([
      'unknown statement `budjet`',
      '`fry` is not a valid day of the week',
    ]);
    const fixes = [
      [2, 4, 'budget', '  budget 1\n'],
      [3, 33, 'fri', '"0 9 * * mon-fri"'],
    ] as const;
    for (const [line, column, fix, fixed] of fixes) {
      await placeCursor(page, line, column);
      expect(await quickFixMenu(page)).toContain(`Replace with \`${fix}\``);
      await page.keyboard.press('Enter');
      await page.waitForFunction((t) => (globalThis as any).kpolEditor.model.getValue().includes(t), fixed);
    }
    await page.waitForFunction(
      () =>
        !(globalThis as any).kpolEditor.monaco.editor
          .getModelMarkers({ owner: 'kpol' })
          .some((m: any) => m.severity === 8),
    );
  });

  it(
    'a space opens completion where the context calls for it (reasons after `for`), not after ' + '`budget 5`',
    async () => {
      await setText(page, 'policy spaces for nodepool default {\n  budget 5\n  budget 2 for\n}\n');
      await placeCursor(page, 3, '  budget 2 for'.length + 1);
      await page.keyboard.type(' ');
      expect(await suggestions(page)).toEqual(expect.arrayContaining(['Empty', 'Drifted', 'Underutilized', 'Expired']));
      await page.keyboard.press('Escape');
      await placeCursor(page, 2, '  budget 5'.length + 1);
      const seen = await page.evaluate(() => (globalThis as any).kpolEditor.checkedText());
      await page.keyboard.type(' ');
      await page.waitForFunction((t) => (globalThis as any).kpolEditor.checkedText() !== t, seen);
      // By then the provider has answered (its answer settles within the keystroke's task); Monaco's
      // suggest model is idle again when the answer was empty (state 0), open when it was not.
      expect(
        await page.evaluate(
          () => (globalThis as any).kpolEditor.editor.getContribution('editor.contrib.suggestController').model.state,
        ),
      ).toBe(0);
    },
  );

  it('completion offers the reasons, and label keys from the connected cluster', async () => {
    await setText(page, 'policy complete for nodepool default {\n  \n}\n');
    await placeCursor(page, 2, 3);
    await page.keyboard.type('budget 2 for ');
    await page.keyboard.press('Control+Space');
    expect(await suggestions(page)).toEqual(expect.arrayContaining(['Empty', 'Drifted', 'Underutilized', 'Expired']));
    await page.keyboard.press('Escape');

    // A key that exists only because the cluster has it: a label of a live Node.
    const { objects } = (await api('GET', '/api/editor/cluster')).json;
    const node = objects.find((o: any) => o.kind === 'Node');
    expect(node).toBeDefined();
    const key = Object.keys(node.metadata.labels).find((k) => k.startsWith('topology.kubernetes.io/zone'))!;
    expect(key).toBeDefined();
    await page.keyboard.press('Enter');
    await page.keyboard.type('pods where topology');
    await page.keyboard.press('Control+Space');
    expect(await suggestions(page)).toContain(key);
    await screenshot(page, '03-completion');
    await page.keyboard.press('Escape');
  });

  it('hover shows the keyword’s documentation', async () => {
    await setText(page, 'policy hover for nodepool default {\n  budget 1 for Drifted\n}\n');
    await page.mouse.move(1, 1);
    const p = await pointAt(page, 2, 5);
    await page.mouse.move(p.x, p.y);
    await page.mouse.move(p.x + 2, p.y);
    const hover = page.locator('.monaco-hover').filter({ hasText: 'at most N nodes' });
    await hover.first().waitFor();
    expect(await hover.first().textContent()).toContain(
      KEYWORD_DOCS.budget.slice(KEYWORD_DOCS.budget.indexOf('at most'), KEYWORD_DOCS.budget.indexOf('at most') + 40),
    );
    await screenshot(page, '04-hover');
  });

  it('the week calendar draws the edited policy’s window in its time zone', async () => {
    // 22:30 for 90 minutes in Kolkata (UTC+5:30): half of the 22:00 hour and all of 23:00, on Saturday and Sunday.
    await setText(
      page,
      'policy week for nodepool default {\n  allow 2 Drifted only during "30 22 * * sat,sun" for ' +
        '90m in "Asia/Kolkata"\n}\n',
    );
    await page.click('nav.tabs button[data-panel="calendar"]');
    const table = page.locator('table.calendar[data-pool="default"][data-reason="Drifted"][data-zone="Asia/Kolkata"]');
    await table.waitFor();
    const cells = await table
      .locator('td.cell')
      .evaluateAll((els) =>
        els.map((e) => [
          Number(e.getAttribute('data-day')),
          Number(e.getAttribute('data-hour')),
          Number(e.getAttribute('data-allowed')),
        ]),
      );
    expect(cells).toHaveLength(168);
    const expected = (day: number, hour: number) => (day >= 5 && hour === 22 ? 0.5 : day >= 5 && hour === 23 ? 1 : 0);
    expect(cells).toEqual(cells.map(([d, h]) => [d, h, expected(d, h)]));
    expect(await page.locator('table.calendar[data-pool="gpu"]').count()).toBe(0);
    await screenshot(page, '05-calendar');
    await page.click('nav.tabs button[data-panel="now"]');
  });

  it('refuses a write without the token, and one from another origin', async () => {
    const rv = (await stored()).resourceVersion;
    const inPage = await page.evaluate(
      async (body) =>
        (await fetch('/api/editor/policies', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body }))
          .status,
      JSON.stringify({ ...AT, text: POLICY, resourceVersion: rv }),
    );
    expect(inPage).toBe(401);
    const foreign = await api('PUT', '/api/editor/policies', {
      origin: 'http://attacker.example',
      body: { ...AT, text: POLICY, resourceVersion: rv },
    });
    expect(foreign.status).toBe(403);
    expect((await stored()).resourceVersion).toBe(rv);
  });

  it('save updates the ConfigMap and the controller picks it up', async () => {
    await openEditor();
    const edited = POLICY.replace('policy business-hours', 'policy saved-in-browser');
    await setText(page, edited);
    await page.click('#save');
    await page.waitForSelector('#status.ok');
    expect(await page.textContent('#status')).toMatch(/^Saved ConfigMap kpol-system\/business-hours \(version \d+\)/);
    expect((await stored()).text).toBe(edited);
    let pool = '';
    for (let i = 0; i < 60 && pool !== 'saved-in-browser'; i++) {
      pool = (await api('GET', '/api/status')).json.nodePools?.default?.policy;
      if (pool !== 'saved-in-browser') await new Promise((r) => setTimeout(r, 250));
    }
    expect(pool).toBe('saved-in-browser');
    await screenshot(page, '06-saved');
  });

  it('a concurrent change produces the conflict message and a diff', async () => {
    const theirs = POLICY.replace('policy business-hours', 'policy someone-else');
    const put = await api('PUT', '/api/editor/policies', {
      body: { ...AT, text: theirs, resourceVersion: (await stored()).resourceVersion },
    });
    expect(put.status).toBe(200);
    await placeCursor(page, 1, 1);
    await page.keyboard.type('# my edit\n');
    await page.click('#save');
    await page.waitForSelector('#conflict:not([hidden]) .conflict-message');
    expect(await page.textContent('#conflict .conflict-message')).toMatch(
      /^conflict: ConfigMap kpol-system\/business-hours changed since you loaded it \(it is now at version \d+\)/,
    );
    await page.waitForSelector('#conflict .monaco-diff-editor');
    await screenshot(page, '07-conflict');
    expect((await stored()).text).toBe(theirs);
    await page.click('#take-theirs');
    expect(await page.evaluate(() => (globalThis as any).kpolEditor.model.getValue())).toBe(theirs);
  });

  it('an invalid policy is kept as a draft, never saved or applied, and survives a reload', async () => {
    const before = await stored();
    const broken = before.text.replace('budget 5', 'budget five');
    await setText(page, broken);
    await page.click('#save');
    await page.waitForSelector('#status.warn');
    expect(await page.textContent('#status')).toContain('kept as a draft');
    expect((await stored()).resourceVersion).toBe(before.resourceVersion);
    await page.reload();
    await page.waitForSelector('body[data-ready]');
    expect(await page.evaluate(() => (globalThis as any).kpolEditor.model.getValue())).toBe(broken);
    expect(await page.textContent('#status')).toContain('Restored unsaved edits');
    await screenshot(page, '08-draft-restored');
  });
});

describe('the kpol editor in Chromium: format and simulate', () => {
  it('format document rewrites the text as `kpol fmt` does', async () => {
    await openEditor();
    const messy =
      'policy   fmt for nodepool default {budget 1\n      budget 0 for Drifted during "@daily" for 1h in "UTC"   }\n';
    await setText(page, messy);
    await page.click('#format');
    const expected = formatSource(messy).value!;
    expect(expected).not.toBe(messy);
    await page.waitForFunction((t) => (globalThis as any).kpolEditor.model.getValue() === t, expected);
  });

  it('simulate 24 h shows what the controller would do with the edited text', async () => {
    await setText(page, POLICY.replace('policy business-hours', 'policy simulated'));
    await page.click('nav.tabs button[data-panel="sim"]');
    await page.click('#simulate');
    await page.waitForSelector('#simulation p.sub:has-text("for 24 h")', { timeout: 60000 });
    expect(await page.textContent('#simulation p.sub')).toMatch(
      /^From .* UTC for 24 h: disruptions .*; cost \$\d+\.\d\d\/h → \$\d+\.\d\d\/h$/,
    );
    expect(await page.locator('#simulation .bars.nodes span').count()).toBe(48);
    await screenshot(page, '09-simulate');
  });
});
