// SPDX-License-Identifier: Apache-2.0
// Builds editor/dist with Vite when it is missing or older than any source it bundles
// (editor/, and the core the worker runs: grammar/, rules/, src/). Idempotent: a fresh build
// is left alone.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'vite';

const ROOT = new URL('../../', import.meta.url).pathname;
export const DIST_INDEX = join(ROOT, 'editor/dist/index.html');
const SOURCES = ['editor/src', 'editor/index.html', 'editor/vite.config.ts', 'grammar', 'rules', 'src', 'package-lock.json'];

function newest(path: string): number {
  const s = statSync(path, { throwIfNoEntry: false });
  if (!s) return 0;
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((f) => newest(join(path, f))));
}

export function editorBuildStale(): boolean {
  const built = statSync(DIST_INDEX, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return SOURCES.some((s) => newest(join(ROOT, s)) > built);
}

export async function ensureEditorBuilt(): Promise<boolean> {
  if (!editorBuildStale()) return false;
  await build({ configFile: join(ROOT, 'editor/vite.config.ts'), logLevel: 'error' });
  return true;
}
