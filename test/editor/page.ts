// SPDX-License-Identifier: Apache-2.0
// Driving the editor page: its Monaco instance is reachable as `kpolEditor` (the same objects
// keystrokes reach); markers are read from Monaco, where the user sees them.
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';

export const ARTIFACTS = new URL('../../test-artifacts/editor/', import.meta.url).pathname;

export interface MarkerView {
  code: string;
  severity: number;
  message: string;
  line: number;
  column: number;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}.png` });
}

/** Replaces the text and waits until the markers for it have arrived (the worker answered). */
export async function setText(page: Page, text: string): Promise<void> {
  await page.evaluate((t) => {
    const k = (globalThis as any).kpolEditor;
    k.model.setValue(t);
  }, text);
  await page.waitForFunction((t) => (globalThis as any).kpolEditor.checkedText() === t, text);
}

/** Error markers only (warnings such as "no budget names `Empty`" are not what these tests type). */
export async function errors(page: Page): Promise<MarkerView[]> {
  return (await markers(page)).filter((m) => m.severity === 8);
}

export async function markers(page: Page): Promise<MarkerView[]> {
  return page.evaluate(() => {
    const k = (globalThis as any).kpolEditor;
    return k.monaco.editor.getModelMarkers({ owner: 'kpol', resource: k.model.uri }).map((m: any) => ({
      code: typeof m.code === 'string' ? m.code : m.code?.value,
      severity: m.severity,
      message: m.message,
      line: m.startLineNumber,
      column: m.startColumn,
    }));
  });
}

/** Puts the cursor at a 1-based line and column and focuses the editor. */
export async function placeCursor(page: Page, lineNumber: number, column: number): Promise<void> {
  await page.evaluate(
    ({ lineNumber, column }) => {
      const e = (globalThis as any).kpolEditor.editor;
      e.setPosition({ lineNumber, column });
      e.revealPosition({ lineNumber, column });
      e.focus();
    },
    { lineNumber, column },
  );
}

/** The page coordinates of a 1-based position, for the mouse. */
export async function pointAt(page: Page, lineNumber: number, column: number): Promise<{ x: number; y: number }> {
  return page.evaluate(
    ({ lineNumber, column }) => {
      const e = (globalThis as any).kpolEditor.editor;
      const p = e.getScrolledVisiblePosition({ lineNumber, column });
      const r = e.getDomNode().getBoundingClientRect();
      return { x: r.left + p.left + 4, y: r.top + p.top + p.height / 2 };
    },
    { lineNumber, column },
  );
}

export async function suggestions(page: Page): Promise<string[]> {
  await page.waitForSelector('.suggest-widget.visible .monaco-list-row');
  return page.$$eval('.suggest-widget.visible .monaco-list-row .label-name', (els) =>
    els.map((e) => e.textContent ?? ''),
  );
}

/**
 * Opens the quick-fix menu at the cursor and returns its text. Monaco asks for code actions by
 * itself a moment after the cursor moves or the markers change, and that request can close a menu
 * opened just before it (a user would press the keys again); so try a few times.
 */
export async function quickFixMenu(page: Page): Promise<string> {
  const menu = '.action-widget >> visible=true';
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Control+.');
    try {
      await page.waitForSelector(menu, { timeout: attempt < 5 ? 3000 : 30_000 });
      await page.waitForTimeout(500); // the menu must stay open past Monaco's own request
      if (await page.isVisible(menu)) return (await page.textContent(menu)) ?? '';
    } catch (e) {
      if (attempt >= 5) throw e;
    }
  }
}
