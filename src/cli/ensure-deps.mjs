// SPDX-License-Identifier: Apache-2.0
// npm pre-hook for `npm start` / `npm test`: installs the locked dependencies on a fresh
// clone so the README's quick-start commands work as the first thing a user runs.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

if (!existsSync(new URL('../../node_modules/.package-lock.json', import.meta.url))) {
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit', cwd: new URL('../..', import.meta.url).pathname });
  process.exit(r.status ?? 1);
}
