// SPDX-License-Identifier: Apache-2.0
// Whether the CLI build (dist/cli/, made by build.mjs) was built from the sources as they are
// now. The build's stamp.json lists every file of the package esbuild read (sources, JSON,
// tsconfig.json and the build script), and npm's record of the installed packages the build
// bundles (node_modules/.package-lock.json), each with its size, mtime and SHA-256 as read. A
// file with the same size and mtime is taken as unchanged (a stat, no read); one whose mtime
// moved (a checkout, an unpacked tarball) is hashed, so touching a file does not make the
// build stale and editing one always does. Plain JavaScript, loaded by bin.mjs before anything
// else: it must stay cheap.
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The package's root folder, from src/edge/cli/. */
export const PACKAGE_ROOT = new URL('../../../', import.meta.url);
/** Where the build goes; its entry is main.mjs. */
export const BUILD_DIR = new URL('dist/cli/', PACKAGE_ROOT);
export const STAMP_FORMAT = 1;

// node:crypto takes a few ms to load: only when a file has to be hashed.
const require = createRequire(import.meta.url);
export const sha256 = (bytes) => require('node:crypto').createHash('sha256').update(bytes).digest('base64url');

/** An input's record as stamped: `bytes` is the content that was read, `mtimeMs` from a stat before the read. */
export const inputRecord = (bytes, mtimeMs) => ({ size: bytes.length, mtimeMs, sha256: sha256(bytes) });

/**
 * `{ fresh: true, entry }` when the build in `buildDir` matches every input it was built from
 * (paths in the stamp are relative to `root`); else `{ fresh: false, reason }`.
 */
export function buildState(root = PACKAGE_ROOT, buildDir = new URL('dist/cli/', root)) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(new URL('stamp.json', buildDir), 'utf8'));
  } catch {
    return { fresh: false, reason: 'there is no build (dist/cli/stamp.json)' };
  }
  if (stamp?.format !== STAMP_FORMAT || typeof stamp.inputs !== 'object' || !stamp.entry)
    return { fresh: false, reason: 'the build is from another version of the build script' };
  const changed = firstChange(root, stamp.inputs);
  if (changed) return { fresh: false, reason: changed };
  // The bundled npm packages, through npm's record of node_modules: compared where there is a
  // node_modules (a checkout); an installed package or the image has none and needs none.
  if (stamp.dependencies && statSync(new URL('node_modules', root), { throwIfNoEntry: false })) {
    const depChanged = firstChange(root, stamp.dependencies);
    if (depChanged) return { fresh: false, reason: `the installed dependencies changed (${depChanged})` };
  }
  return { fresh: true, entry: new URL(stamp.entry, buildDir) };
}

/** Why the first of `records` that differs from its file does, or undefined when none does. */
function firstChange(root, records) {
  for (const [path, want] of Object.entries(records)) {
    const url = new URL(path, root);
    const st = statSync(url, { throwIfNoEntry: false });
    if (!st) return `${path} was removed since the build`;
    if (st.size !== want.size) return `${path} changed since the build`;
    if (st.mtimeMs === want.mtimeMs) continue;
    if (sha256(readFileSync(url)) !== want.sha256) return `${path} changed since the build`;
  }
  return undefined;
}
