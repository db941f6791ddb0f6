#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// The `kpol` executable. Runs the JavaScript build in dist/cli/ (build.mjs: made by npm install,
// npm pack and the first npm start / npm test) when it was built from the sources as they are
// now; otherwise — a fresh clone before its build, a developer's edited sources, or
// KPOL_FROM_SOURCE=1 — the TypeScript sources through tsx. Never a stale build.
import { buildState } from './build-state.mjs';

const state = process.env.KPOL_FROM_SOURCE ? { fresh: false, reason: 'KPOL_FROM_SOURCE is set' } : buildState();
let main;
if (state.fresh) {
  if (process.env.KPOL_DEBUG) process.setSourceMapsEnabled(true);
  ({ main } = await import(state.entry.href));
} else {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    process.stderr.write(
      `kpol: cannot start: the build in dist/cli/ cannot be used (${state.reason}), and tsx, ` +
        `which runs kpol from its TypeScript sources, is not installed. Build it with \`npm run ` +
        `build\` (esbuild, a devDependency), or install the devDependencies.\n`,
    );
    process.exit(70);
  }
  register();
  ({ main } = await import('./main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
