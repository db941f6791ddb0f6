// SPDX-License-Identifier: Apache-2.0
// The scheduling simulation is pure: it bundles for the browser with no Node built-in and
// never reads the wall clock (time, where needed, is a parameter).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const FILES = readdirSync(join(ROOT, 'src/scheduling')).filter((f) => f.endsWith('.ts')).map((f) => `src/scheduling/${f}`);

describe('src/scheduling portability', () => {
  it('bundles for the browser without Node built-ins', async () => {
    let errors: string[] = [];
    try {
      await build({
        stdin: { contents: FILES.map((f) => `export * from './${f}';`).join('\n'), resolveDir: ROOT, loader: 'ts' },
        bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent',
      });
    } catch (e) {
      errors = (e as { errors: { text: string }[] }).errors.map((x) => x.text);
    }
    expect(FILES.length).toBeGreaterThan(5);
    expect(errors).toEqual([]);
  });

  it.each(FILES)('%s never reads the wall clock or the environment', (file) => {
    expect(readFileSync(join(ROOT, file), 'utf8')).not.toMatch(/Date\.now\(|new Date\(\)|performance\.now\(|process\.env|from 'node:/);
  });
});
