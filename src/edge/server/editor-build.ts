// SPDX-License-Identifier: Apache-2.0
// Keeps the browser editor's build (editor/dist, served under /editor/) in step with its
// sources: `kpol run` and `kpol serve` on the embedded cluster call ensureEditorBuilt() before
// they serve it, and so does the editor tests' global setup — one code path. The build itself
// is editor/build.mjs (Vite, a development dependency) in a child process, so the controller
// never loads Vite and a failed build cannot take it down.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packagePath } from '../../core/package-root.js';
import { EDITOR_DIST } from './editor-static.js';

const ROOT = packagePath('.');
const BUILD_SCRIPT = packagePath('editor/build.mjs');
const DIST_INDEX = join(EDITOR_DIST, 'index.html');

/** What the bundle is made from: the page, and the core its worker runs (grammar/, rules/, src/). */
const SOURCES = [
  'editor/src',
  'editor/index.html',
  'editor/vite.config.ts',
  'editor/build.mjs',
  'grammar',
  'rules',
  'src',
  'package-lock.json',
];

function newest(path: string): number {
  const s = statSync(path, { throwIfNoEntry: false });
  if (!s) return 0;
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((f) => newest(join(path, f))));
}

/**
 * `fresh`: built and newer than every source. `missing`/`stale`: a build is needed and possible.
 * `unbuildable`: no build script or no editor sources here (an installation without them).
 */
export type EditorBuildState = 'fresh' | 'missing' | 'stale' | 'unbuildable';

export function editorBuildState(): EditorBuildState {
  const built = statSync(DIST_INDEX, { throwIfNoEntry: false })?.mtimeMs;
  const buildable = existsSync(BUILD_SCRIPT) && existsSync(join(ROOT, 'editor/src'));
  if (built === undefined) return buildable ? 'missing' : 'unbuildable';
  if (!buildable) return 'fresh'; // a shipped build, with nothing here to rebuild it from
  return SOURCES.some((s) => newest(join(ROOT, s)) > built) ? 'stale' : 'fresh';
}

export interface EditorBuildResult {
  state: EditorBuildState;
  /** Whether this call ran a build that succeeded. */
  built: boolean;
  /** Why the build failed (its last lines of stderr), when it did. */
  error?: string;
}

/**
 * Builds the editor when it is missing or stale, reporting through `log` (one line each: what
 * is about to happen, a progress line every few seconds, the result). Never throws for a failed
 * build: the caller still serves the controller, and /editor/ says the editor is not built.
 */
export async function ensureEditorBuilt(
  log: (line: string) => void,
  o: { progressMs?: number } = {},
): Promise<EditorBuildResult> {
  const state = editorBuildState();
  if (state === 'fresh') return { state, built: false };
  if (state === 'unbuildable') {
    log(`the browser editor is not built and cannot be built here: ${BUILD_SCRIPT} or editor/src is missing`);
    return { state, built: false };
  }
  const what =
    state === 'missing'
      ? 'building the browser editor (first start only'
      : 'rebuilding the browser editor (its sources changed';
  log(`${what}; a few seconds, up to a minute on a busy machine)…`);
  const child = spawn(process.execPath, [BUILD_SCRIPT], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, KPOL_PROGRESS_MS: String(o.progressMs ?? 3000) },
  });
  let stderr = '';
  let pending = '';
  child.stdout.on('data', (d: Buffer) => {
    pending += d.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) if (line.trim()) log(line);
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => {
    child.once('error', (e) => {
      stderr += e.message;
      resolve(null);
    });
    child.once('close', (c) => resolve(c));
  });
  if (pending.trim()) log(pending);
  if (code === 0) return { state, built: true };
  const why = stderr.trim().split('\n').slice(-8).join('\n') || `exit code ${code}`;
  log(`could not build the browser editor (node ${BUILD_SCRIPT}):\n${why}`);
  return { state, built: false, error: why };
}
