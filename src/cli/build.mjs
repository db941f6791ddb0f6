#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// Builds the CLI ahead of time: esbuild bundles src/cli/main.ts and what it imports into
// dist/cli/ (ES modules, code splitting: each lazily imported command is a chunk of its own;
// npm packages stay external and load from node_modules). Run by `npm run build`, by npm's
// `prepare` (npm ci / npm install / npm pack) and by the `npm start` / `npm test` pre-hook when
// the build is missing or stale (--if-stale). bin.mjs runs the build only while its stamp
// matches the sources (build-state.mjs), else the sources through tsx.
//
// The new build is written next to the old one and swapped in with two renames, so a kpol
// starting meanwhile sees the old build, no build, or the new one — never half of one.
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUILD_DIR, buildState, inputRecord, PACKAGE_ROOT, STAMP_FORMAT } from './build-state.mjs';

const ENTRY_SOURCE = 'src/cli/main.ts';
/** Packages left to load from node_modules at run time (they are `dependencies`). */
export const EXTERNAL = ['@kubernetes/client-node'];
const LOADERS = { '.ts': 'ts', '.mts': 'ts', '.js': 'js', '.mjs': 'js', '.json': 'json' };

/** esbuild's options for building into `outDir` (a path), the package being at `root` (a path). */
export function esbuildOptions(root, outDir) {
  return {
    absWorkingDir: root,
    entryPoints: { main: ENTRY_SOURCE },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    // npm packages are bundled too: chevrotain alone is ~2,500 small files (lodash-es) to resolve
    // and load one by one. The Kubernetes client stays in node_modules: only commands that talk
    // to a cluster load it.
    external: EXTERNAL,
    // CommonJS packages bundled into ES modules still call require() for Node's built-ins.
    banner: { js: "import { createRequire as __kpolCreateRequire } from 'node:module'; const require = __kpolCreateRequire(import.meta.url);" },
    // Every module of the build lives in outDir: src/package-root.ts finds the package from there.
    define: { KPOL_BUILD_ROOT: JSON.stringify(`${relative(outDir, root) || '.'}/`) },
    // Maps point at the sources shipped next to the build; node uses them with --enable-source-maps.
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
  };
}

/** Reads every file of the package esbuild loads, recording it for the stamp exactly as read. */
function stampingPlugin(root, inputs) {
  return {
    name: 'kpol-stamp',
    setup(build) {
      build.onLoad({ filter: /.*/, namespace: 'file' }, (args) => {
        const rel = relative(root, args.path);
        if (rel.startsWith('..') || rel.split(/[\\/]/).includes('node_modules')) return undefined;
        const ext = /\.[^./\\]+$/.exec(args.path)?.[0] ?? '';
        const loader = LOADERS[ext];
        if (!loader) return undefined;
        const { mtimeMs } = statSync(args.path);
        const bytes = readFileSync(args.path);
        inputs[rel.split('\\').join('/')] = inputRecord(bytes, mtimeMs);
        return { contents: bytes, loader };
      });
    },
  };
}

/** Files that shape the output without being imported: recorded like the sources. */
const CONFIG_INPUTS = ['tsconfig.json', 'src/cli/build.mjs', 'src/cli/build-state.mjs'];

/**
 * Builds into `outDir` (default dist/cli/) and writes its stamp. Returns the output files
 * (relative to outDir) and esbuild's metafile.
 */
export async function buildCli({ root = fileURLToPath(PACKAGE_ROOT), outDir = fileURLToPath(BUILD_DIR) } = {}) {
  const { build } = await import('esbuild');
  const final = outDir.replace(/[\\/]+$/, '');
  const tmp = `${final}.tmp-${process.pid}`;
  const old = `${final}.old-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const inputs = {};
  for (const rel of CONFIG_INPUTS) {
    const path = `${root}/${rel}`;
    const { mtimeMs } = statSync(path);
    inputs[rel] = inputRecord(readFileSync(path), mtimeMs);
  }
  try {
    const result = await build({ ...esbuildOptions(root, final), outdir: tmp, plugins: [stampingPlugin(root, inputs)] });
    const sorted = Object.fromEntries(Object.entries(inputs).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(`${tmp}/stamp.json`, `${JSON.stringify({ format: STAMP_FORMAT, entry: 'main.mjs', builtAt: new Date().toISOString(), inputs: sorted }, null, 1)}\n`);
    let hadOld = true;
    try {
      renameSync(final, old);
    } catch (e) {
      if (e.code !== 'ENOENT') throw e;
      hadOld = false;
    }
    renameSync(tmp, final);
    if (hadOld) rmSync(old, { recursive: true, force: true });
    const outputs = Object.keys(result.metafile.outputs).map((o) => relative(tmp, `${root}/${o}`));
    return { outputs, metafile: result.metafile, inputs: Object.keys(sorted) };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function cli(argv) {
  const ifStale = argv.includes('--if-stale');
  if (ifStale) {
    const state = buildState();
    if (state.fresh) return 0;
    console.error(`kpol: building the CLI into dist/cli/ (${state.reason})`);
  }
  try {
    await import('esbuild');
  } catch {
    // npm ci --omit=dev: no esbuild, so no build; bin.mjs runs the sources through tsx if installed.
    console.error('kpol: esbuild (a devDependency) is not installed: the CLI is not built and will run from its sources');
    return 0;
  }
  const t = performance.now();
  const { outputs } = await buildCli();
  if (!ifStale) console.error(`kpol: built dist/cli/ (${outputs.filter((o) => o.endsWith('.mjs')).length} modules) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = await cli(process.argv.slice(2));
