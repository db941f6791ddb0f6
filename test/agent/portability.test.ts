// SPDX-License-Identifier: Apache-2.0
// The simulated cloud and the node agent run in the browser playground too: no Node built-ins,
// no wall clock (test/portability.test.ts covers the rest of the core the same way).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const files = ['src/cloud', 'src/agent'].flatMap((d) => readdirSync(join(ROOT, d)).filter((f) => f.endsWith('.ts')).map((f) => `${d}/${f}`));

describe('src/cloud and src/agent portability', () => {
  it('bundle for the browser without Node built-ins', async () => {
    const errors = await build({
      stdin: { contents: files.map((f) => `export * from './${f}';`).join('\n'), resolveDir: ROOT, loader: 'ts' },
      bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent',
    }).then(() => [], (e: { errors: { text: string }[] }) => e.errors.map((x) => x.text));
    expect(errors).toEqual([]);
  });
  it.each(files)('%s never reads the wall clock', (file) => {
    expect(readFileSync(join(ROOT, file), 'utf8')).not.toMatch(/Date\.now\(|new Date\(\)|performance\.now\(/);
  });
});
