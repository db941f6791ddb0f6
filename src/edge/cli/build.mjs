#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// Builds the CLI ahead of time: esbuild bundles src/edge/cli/main.ts and everything it imports,
// npm packages included, into dist/cli/ (ES modules with code splitting: each lazily imported
// command is a chunk of its own, so `kpol check` never loads the Kubernetes client). The build
// needs nothing from node_modules at run time: an installed kpol has no dependencies to
// resolve, and carries the versions package-lock.json pins (overrides included).
// Run by `npm run build`, by npm's `prepare` (npm ci / npm install / npm pack) and by the
// `npm start` / `npm test` pre-hook when the build is missing or stale (--if-stale). bin.mjs
// runs the build only while its stamp matches the sources (build-state.mjs), else the sources
// through tsx.
//
// The new build is written next to the old one and swapped in with two renames, so a kpol
// starting meanwhile sees the old build, no build, or the new one — never half of one.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUILD_DIR, buildState, inputRecord, PACKAGE_ROOT, STAMP_FORMAT } from './build-state.mjs';

const ENTRY_SOURCE = 'src/edge/cli/main.ts';
const LOADERS = { '.ts': 'ts', '.mts': 'ts', '.js': 'js', '.mjs': 'js', '.json': 'json' };
/** Files that shape the output without being imported: recorded like the sources. */
const CONFIG_INPUTS = ['tsconfig.json', 'src/edge/cli/build.mjs', 'src/edge/cli/build-state.mjs'];
/** npm's record of what is installed in node_modules: the bundled packages' versions. */
const DEPENDENCY_RECORD = 'node_modules/.package-lock.json';

/** esbuild's options for building into `outDir` (a path), the package being at `root` (a path). */
function esbuildOptions(root, outDir) {
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
    // CommonJS packages bundled into ES modules still call require() (Node's built-ins, optional
    // packages inside try/catch): give every chunk a real one.
    banner: {
      js:
        "import { createRequire as __kpolCreateRequire } from 'node:module'; const require = " +
        '__kpolCreateRequire(import.meta.url);',
    },
    // Every module of the build lives in outDir: src/core/package-root.ts finds the package from there.
    define: { KPOL_BUILD_ROOT: JSON.stringify(`${relative(outDir, root).split(sep).join('/') || '.'}/`) },
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
        if (rel.startsWith('..') || rel.split(sep).includes('node_modules')) return undefined;
        const loader = LOADERS[/\.[^./\\]+$/.exec(args.path)?.[0] ?? ''];
        if (!loader) return undefined;
        const { mtimeMs } = statSync(args.path);
        const bytes = readFileSync(args.path);
        inputs[rel.split(sep).join('/')] = inputRecord(bytes, mtimeMs);
        return { contents: bytes, loader };
      });
    },
  };
}

const record = (root, rel) => {
  const path = join(root, rel);
  const { mtimeMs } = statSync(path);
  return inputRecord(readFileSync(path), mtimeMs);
};
const sorted = (o) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));

/** The folder of the npm package a bundled file belongs to (`…/node_modules/@scope/name`). */
function packageDir(file) {
  const parts = file.split(/[\\/]/);
  const i = parts.lastIndexOf('node_modules');
  if (i < 0) return undefined;
  return parts.slice(0, i + (parts[i + 1]?.startsWith('@') ? 3 : 2)).join('/');
}

/** The license texts of the npm packages bundled into the build, one section per package. */
function thirdPartyNotices(root, metafile) {
  const dirs = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const dir = packageDir(input);
    if (dir) dirs.add(dir);
  }
  const sections = [];
  for (const dir of [...dirs].sort()) {
    const abs = join(root, dir);
    const pkg = JSON.parse(readFileSync(join(abs, 'package.json'), 'utf8'));
    const files = readdirSync(abs)
      .filter((f) => /^(licen[cs]e|notice|copying)(\.|-|$)/i.test(f))
      .sort();
    const texts = files.map((f) => readFileSync(join(abs, f), 'utf8').trim());
    sections.push(
      `${pkg.name}@${pkg.version} (${typeof pkg.license === 'string' ? pkg.license : 'see below'})\n\n` +
        (texts.join('\n\n') || '(no license file in the package)'),
    );
  }
  return (
    `The kpol CLI build bundles these npm packages. Their licenses ` +
    `follow.\n\n${sections.join(`\n\n${'-'.repeat(72)}\n\n`)}\n`
  );
}

/**
 * Builds the package at `root` (default: this one) into `outDir` (default: its dist/cli/)
 * and writes the stamp. Returns the modules built and the package files the stamp records.
 */
export async function buildCli({
  root = fileURLToPath(PACKAGE_ROOT),
  outDir = join(root, relative(fileURLToPath(PACKAGE_ROOT), fileURLToPath(BUILD_DIR))),
} = {}) {
  const { build } = await import('esbuild');
  root = root.replace(/[\\/]+$/, '');
  const final = outDir.replace(/[\\/]+$/, '');
  const tmp = `${final}.tmp-${process.pid}`;
  const old = `${final}.old-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const inputs = Object.fromEntries(CONFIG_INPUTS.map((rel) => [rel, record(root, rel)]));
  // Recorded before the build reads node_modules: an install meanwhile makes the stamp older, not newer.
  const dependencies = existsSync(join(root, DEPENDENCY_RECORD))
    ? { [DEPENDENCY_RECORD]: record(root, DEPENDENCY_RECORD) }
    : undefined;
  try {
    const result = await build({
      ...esbuildOptions(root, final),
      outdir: tmp,
      plugins: [stampingPlugin(root, inputs)],
    });
    writeFileSync(join(tmp, 'THIRD-PARTY-NOTICES.txt'), thirdPartyNotices(root, result.metafile));
    const stamp = {
      format: STAMP_FORMAT,
      entry: 'main.mjs',
      builtAt: new Date().toISOString(),
      inputs: sorted(inputs),
      ...(dependencies && { dependencies }),
    };
    writeFileSync(join(tmp, 'stamp.json'), `${JSON.stringify(stamp, null, 1)}\n`);
    let hadOld = true;
    try {
      renameSync(final, old);
    } catch (e) {
      if (e.code !== 'ENOENT') throw e;
      hadOld = false;
    }
    renameSync(tmp, final);
    if (hadOld) rmSync(old, { recursive: true, force: true });
    // Each module of the build (relative to outDir) with the files bundled into it (relative to root).
    const modules = Object.fromEntries(
      Object.entries(result.metafile.outputs)
        .filter(([o]) => o.endsWith('.mjs'))
        .map(([o, out]) => [relative(tmp, join(root, o)).split(sep).join('/'), Object.keys(out.inputs)]),
    );
    return { modules, inputs: Object.keys(stamp.inputs) };
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
    console.error('kpol: esbuild (a devDependency) is not installed: the CLI is not built and runs from its sources');
    return 0;
  }
  const t = performance.now();
  const { modules } = await buildCli();
  const seconds = ((performance.now() - t) / 1000).toFixed(1);
  console.error(`kpol: built dist/cli/ (${Object.keys(modules).length} modules) in ${seconds} s`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = await cli(process.argv.slice(2));
