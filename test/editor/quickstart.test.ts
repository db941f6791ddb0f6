// SPDX-License-Identifier: Apache-2.0
// The README's quick start as a new user goes through it: `npm start` (kpol run on the embedded
// simulated cluster), then the editor link it prints, in Chromium. The demo policy is listed and
// loaded, an edit typed into it shows in the preview and the week calendar, Simulate draws
// labelled charts, and a new policy starts without errors. Screenshots in test-artifacts/editor/.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type Browser } from './browser.js';
import { errors, placeCursor, screenshot } from './page.js';
import { startNpmStart, type Served } from './serve-process.js';

const POLICY = readFileSync(new URL('../../rules/examples/business-hours.kpol', import.meta.url), 'utf8');

let served: Served;
let browser: Browser;
let page: Page;

const text = () => page.evaluate(() => (globalThis as any).kpolEditor.model.getValue() as string);
/** Waits until the worker has checked the text as it is now. */
const checked = () =>
  page.waitForFunction(() => {
    const k = (globalThis as any).kpolEditor;
    return k.checkedText() === k.model.getValue();
  });

/** The 1-based line and column just after the first `needle` in the editor's text. */
async function after(needle: string): Promise<{ line: number; column: number }> {
  const all = await text();
  const at = all.indexOf(needle);
  expect(at).toBeGreaterThanOrEqual(0);
  const before = all.slice(0, at + needle.length).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/** Replaces `word` (the first one following `context`) by typing, as a user would. */
async function retype(context: string, word: string, replacement: string): Promise<void> {
  const want = (await text()).replace(context + word, context + replacement);
  const { line, column } = await after(context + word);
  await placeCursor(page, line, column);
  for (let i = 0; i < word.length; i++) await page.keyboard.press('Backspace');
  await page.keyboard.type(replacement);
  // Typing a word opens completion; close it, so that the next keys go to the text.
  await page.keyboard.press('Escape');
  await page.waitForFunction((t) => (globalThis as any).kpolEditor.model.getValue() === t, want);
}

beforeAll(async () => {
  served = await startNpmStart();
  browser = await launchBrowser();
  page = await browser.context.newPage();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await served?.stop();
});

describe('the quick start: npm start, then the editor link it prints', () => {
  it('prints the editor link with its token', () => {
    expect(served.editorUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/editor\/#token=[A-Za-z0-9_-]{32}$/);
    expect(served.output()).toMatch(
      /kpol: embedded simulated cluster .*clock ×60; status page http:\/\/127\.0\.0\.1:\d+\//,
    );
  });

  it('lists the demo policy and opens it', async () => {
    await page.goto(served.editorUrl);
    await page.waitForSelector('body[data-ready]');
    const options = await page.locator('#policy option').allTextContents();
    expect(options).toEqual(['kpol-system/business-hours · business-hours.kpol', 'New policy…']);
    expect(await page.inputValue('#policy')).toBe('kpol-system/business-hours/business-hours.kpol');
    expect(await text()).toBe(POLICY);
    expect(await page.textContent('#status')).toMatch(
      /^Loaded ConfigMap kpol-system\/business-hours \(version \d+\)\.$/,
    );
    await page.waitForSelector('#now table.pools tr[data-pool="default"]');
    expect(
      await page
        .locator('#now table.pools tbody tr')
        .evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-pool'), r.children[1].textContent])),
    ).toEqual([
      ['default', 'business-hours'],
      ['gpu', 'business-hours'],
    ]);
    await screenshot(page, '10-quickstart-loaded');
  });

  it('an edit typed into the policy shows in the preview and the week calendar', async () => {
    await retype('policy ', 'business-hours', 'my-hours');
    await retype('  budget ', '5', '1');
    await checked();
    expect(await errors(page)).toEqual([]);
    // The preview is of the edited text: its name governs both NodePools, its cap of 1 bounds every reason.
    await page.waitForFunction(
      () =>
        Array.from(document.querySelectorAll('#now table.pools tbody tr td:nth-child(2)'))
          .map((td) => td.textContent)
          .join() === 'my-hours,my-hours',
    );
    const allowed = await page.locator('#now table.pools tbody td[data-reason]').allTextContents();
    expect(allowed.length).toBe(8);
    for (const a of allowed) expect(['0', '1', '–']).toContain(a);

    // The simulated cloud launches the demo's nodes within seconds; the page refreshes the cluster every 10 s.
    await page.waitForSelector('#now table.nodes tr[data-node]', { timeout: 30_000 });
    await page.waitForFunction(
      () => Number(document.querySelector('#now table.pools tr[data-pool="default"] td:nth-child(3)')?.textContent) > 0,
    );
    await screenshot(page, '11-quickstart-edited');

    await page.click('nav.tabs button[data-panel="calendar"]');
    const drift = page.locator('table.calendar[data-pool="default"][data-reason="Drifted"][data-zone="Europe/Berlin"]');
    await drift.waitFor();
    expect(await page.locator('#calendar section.cal h4').allTextContents()).toEqual(
      expect.arrayContaining(['default · Drifted · Europe/Berlin', 'gpu · Underutilized · Europe/Berlin']),
    );
    const cells = await drift
      .locator('td.cell')
      .evaluateAll((els) =>
        els.map((e) => [
          Number(e.getAttribute('data-day')),
          Number(e.getAttribute('data-hour')),
          Number(e.getAttribute('data-allowed')),
        ]),
      );
    expect(cells).toHaveLength(7 * 24);
    // `allow 3 Drifted only during "0 1 * * mon-fri" for 4h in "Europe/Berlin"`: Monday to Friday, 01:00–05:00 Berlin
    // time.
    expect(cells.filter(([, , share]) => share > 0).map(([day, hour, share]) => [day, hour, share])).toEqual(
      [0, 1, 2, 3, 4].flatMap((day) => [1, 2, 3, 4].map((hour) => [day, hour, 1])),
    );
    await screenshot(page, '12-quickstart-week');
  });

  it('Simulate runs the next 24 h and draws labelled charts; no two buttons share a label', async () => {
    const labels = await page.locator('button:visible').allTextContents();
    expect(new Set(labels).size).toBe(labels.length);
    await page.click('nav.tabs button[data-panel="sim"]');
    expect(await page.textContent('nav.tabs button[data-panel="sim"]')).toBe('Simulate');
    expect(await page.textContent('#simulate')).toBe('Run 24 h from now');
    const all = await page.locator('button:visible').allTextContents();
    expect(new Set(all).size).toBe(all.length);

    await page.click('#simulate');
    await page.waitForSelector('#simulation figure.chart[data-series="cost"]', { timeout: 60_000 });
    expect(await page.textContent('#simulation p.sub')).toMatch(
      /^From .* UTC for 24 h: disruptions .*; cost \$\d+\.\d\d\/h → \$\d+\.\d\d\/h$/,
    );
    const charts = await page.locator('#simulation figure.chart').evaluateAll((figs) =>
      figs.map((f) => ({
        series: f.getAttribute('data-series'),
        title: f.querySelector('figcaption')?.textContent,
        y: Array.from(f.querySelectorAll('.y-axis span')).map((s) => s.textContent),
        x: Array.from(f.querySelectorAll('.x-axis span')).map((s) => s.textContent),
        xTitle: f.querySelector('.x-title')?.textContent,
        bars: Array.from(f.querySelectorAll('.bars span')).map((s) => s.getAttribute('title')),
        label: f.querySelector('.bars')?.getAttribute('aria-label'),
      })),
    );
    expect(charts.map((c) => [c.series, c.title, c.xTitle])).toEqual([
      ['nodes', 'Nodes over the next 24 h', 'time (UTC), from now'],
      ['cost', 'Cost over the next 24 h ($ per hour)', 'time (UTC), from now'],
    ]);
    for (const c of charts) {
      // Five UTC times 6 h apart: the first and last are the same time of day.
      expect(c.x).toHaveLength(5);
      for (const t of c.x) expect(t).toMatch(/^\d\d:\d\d$/);
      expect(c.x[4]).toBe(c.x[0]);
      expect(c.bars).toHaveLength(48);
      for (const b of c.bars)
        expect(b).toMatch(/^\d\d-\d\d \d\d:\d\d UTC: \d+ nodes?, \$\d+\.\d\d\/h, \d+ pending pods$/);
      expect(c.label).toMatch(/at the start, .* at the end, at most /);
    }
    expect(charts[0].y).toEqual([expect.stringMatching(/^\d+ nodes?$/), '0 nodes']);
    expect(charts[1].y).toEqual([expect.stringMatching(/^\$\d+\.\d\d\/h$/), '$0.00/h']);
    // The simulated cloud launches the demo's nodes: the chart is not empty.
    expect(charts[0].bars.some((b) => !/: 0 nodes,/.test(b!))).toBe(true);
    await screenshot(page, '13-quickstart-simulate');
  });

  it('a new policy starts from a template without errors', async () => {
    page.once('dialog', (d) => void d.accept('my-policy'));
    await page.selectOption('#policy', 'new');
    await page.waitForFunction(() => (globalThis as any).kpolEditor.model.getValue().includes('policy my-policy'));
    await checked();
    expect(await errors(page)).toEqual([]);
    // Both demo NodePools are governed by business-hours already: the template says so and selects by label.
    expect(await text()).toContain('policy my-policy for nodepools where team = "my-policy" {');
    expect(await page.textContent('#status')).toBe('New policy: not saved yet.');
    expect(await page.locator('#policy option:checked').textContent()).toBe(
      'kpol-system/my-policy · my-policy.kpol (not saved yet)',
    );
    // The preview is of the new text beside the stored policies: it governs neither NodePool, and says so.
    await page.click('nav.tabs button[data-panel="now"]');
    await page.waitForSelector('#now p[data-governs="none"]');
    expect(await page.locator('#now table.pools tbody tr td:nth-child(2)').allTextContents()).toEqual([
      'business-hours',
      'business-hours',
    ]);
    await screenshot(page, '14-quickstart-new-policy');
  });
});
