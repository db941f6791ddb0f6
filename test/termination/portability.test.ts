// SPDX-License-Identifier: Apache-2.0
// src/termination runs in the browser simulation too: it bundles without Node built-ins and
// takes time only from its callers (the injected clock), never from the wall clock.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const DIR = 'src/termination';
const files = readdirSync(join(ROOT, DIR)).filter((f) => f.endsWith('.ts'));

describe('src/termination portability', () => {
  it('bundles for the browser', async () => {
    const contents = files.map((f) => `export * from './${DIR}/${f}';`).join('\n');
    await expect(
      build({ stdin: { contents, resolveDir: ROOT, loader: 'ts' }, bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent' }),
    ).resolves.toBeDefined();
  });
  it.each(files)('%s never reads the wall clock', (f) => {
    expect(readFileSync(join(ROOT, DIR, f), 'utf8')).not.toMatch(/Date\.now\(|new Date\(\)|performance\.now\(|from 'node:/);
  });
});
