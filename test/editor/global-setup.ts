// SPDX-License-Identifier: Apache-2.0
// Once per `npm test`: Debian's Chromium is installed if missing and the editor bundle is
// rebuilt if stale, before any browser test starts.
import { ensureChromium } from './browser.js';
import { ensureEditorBuilt } from './editor-build.js';

export default async function setup(): Promise<void> {
  ensureChromium();
  await ensureEditorBuilt();
}
