// SPDX-License-Identifier: Apache-2.0
// npm pre-hook for `npm start` / `npm test`: installs the locked dependencies on a fresh
// clone (npm ci also builds the CLI, through `prepare`), then builds the CLI into dist/cli/ if
// it is missing or does not match the sources, so the README's quick-start commands work as the
// first thing a user runs and `kpol` starts from JavaScript.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildState } from './build-state.mjs';

const root = fileURLToPath(new URL('../../..', import.meta.url));
if (!existsSync(new URL('../../../node_modules/.package-lock.json', import.meta.url))) {
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
if (!buildState().fresh) {
  const r = spawnSync(process.execPath, [fileURLToPath(new URL('build.mjs', import.meta.url)), '--if-stale'], {
    stdio: 'inherit',
    cwd: root,
  });
  process.exit(r.status ?? 1);
}
