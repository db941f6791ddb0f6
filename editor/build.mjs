#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// Builds the browser editor into editor/dist with Vite. `kpol run` and `kpol serve` run it (as a
// child process, see src/edge/server/editor-build.ts) when the build is missing or older than its
// sources; so does the editor tests' global setup. Plain JavaScript so that it needs no tsx.
//
// It builds into a fresh folder beside dist/ and swaps it in, so a server reading dist/ or a
// second build running at the same time never sees half a build. It prints a progress line to
// stdout every KPOL_PROGRESS_MS (default 3000) ms and one line when done; errors go to stderr.
import { renameSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'vite';

const here = new URL('.', import.meta.url).pathname;
const dist = join(here, 'dist');
const partial = join(here, `.dist-partial-${process.pid}`);
const started = Date.now();
const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;

let modules = 0;
let phase = 'transforming modules';
const progress = {
  name: 'kpol-build-progress',
  transform() {
    modules++;
    return null;
  },
  buildEnd() {
    phase = 'bundling';
  },
};
const every = Number(process.env.KPOL_PROGRESS_MS) || 3000;
const timer = setInterval(() => console.log(`building the editor: ${seconds()}, ${phase} (${modules} so far)`), every);

try {
  await build({
    configFile: join(here, 'vite.config.ts'),
    logLevel: 'error',
    build: { outDir: partial, emptyOutDir: true },
    plugins: [progress],
  });
  // Stamped with the build's start: a source saved while it ran is newer, so the next start rebuilds.
  utimesSync(join(partial, 'index.html'), started / 1000, started / 1000);
  rmSync(dist, { recursive: true, force: true });
  try {
    renameSync(partial, dist);
  } catch (e) {
    // Another build swapped its folder in between: it is as fresh as this one.
    if (e.code !== 'ENOTEMPTY' && e.code !== 'EEXIST') throw e;
    rmSync(partial, { recursive: true, force: true });
  }
  console.log(`built the editor in ${seconds()} (${modules} modules) into ${dist}`);
} catch (e) {
  rmSync(partial, { recursive: true, force: true });
  console.error(e instanceof Error ? e.message : String(e));
  process.exitCode = 1;
} finally {
  clearInterval(timer);
}
