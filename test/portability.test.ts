// SPDX-License-Identifier: Apache-2.0
// One core: everything except the CLI, the HTTP server and the fixture runner must run in the
// browser (the editor's web worker and playground) — it bundles for platform "browser" with no
// Node built-in (esbuild refuses `node:` imports there) and never reads the wall clock: time
// comes from an injected Clock.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;
const PORTABLE_DIRS = [
  'grammar',
  'rules',
  'rules/checks',
  'src/core/cluster',
  'src/core/cluster/memory',
  'src/world/controllers',
  'src/core/facts',
  'src/core/eval',
  'src/core/policy',
  'src/world/scheduling',
  'src/control/termination',
  'src/world/cloud',
  'src/world/agent',
  'src/control/reconciler',
  'src/control/reconciler/methods',
  'src/control/provisioning',
  'src/core/observe',
  'src/control/runtime',
  'src/edge/simulate',
  'src/control/leader',
];
const files = PORTABLE_DIRS.flatMap((d) =>
  readdirSync(join(ROOT, d))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${d}/${f}`),
);

async function browserBuildErrors(entries: readonly string[]): Promise<string[]> {
  try {
    await build({
      stdin: { contents: entries.map((e) => `export * from './${e}';`).join('\n'), resolveDir: ROOT, loader: 'ts' },
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
    });
    return [];
  } catch (e) {
    return (e as { errors: { text: string }[] }).errors.map((x) => x.text);
  }
}

describe('browser portability', () => {
  it.each(PORTABLE_DIRS)('%s bundles for the browser without Node built-ins', async (dir) => {
    const entries = files.filter((f) => f.slice(0, f.lastIndexOf('/')) === dir);
    expect(entries.length).toBeGreaterThan(0);
    expect(await browserBuildErrors(entries)).toEqual([]);
  });
  it('detects a Node built-in (control: the CLI I/O module uses node:fs)', async () => {
    expect((await browserBuildErrors(['src/edge/cli/shared/io.ts'])).join('\n')).toMatch(/node:fs/);
  });
});

describe('injected clock', () => {
  it.each(files)('%s never reads the wall clock or the environment, nor imports a Node built-in', (file) => {
    expect(readFileSync(join(ROOT, file), 'utf8')).not.toMatch(
      /Date\.now\(|new Date\(\)|performance\.now\(|process\.env|from 'node:/,
    );
  });
});
