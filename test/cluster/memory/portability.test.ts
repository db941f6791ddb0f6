// SPDX-License-Identifier: Apache-2.0
// The in-memory API server and the built-in controllers run in the browser playground: they
// bundle with no Node built-in and never read the wall clock (test/portability.test.ts covers
// the rest of src/ the same way).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../..', import.meta.url).pathname;
const DIRS = ['src/cluster/memory', 'src/controllers'];
const files = DIRS.flatMap((d) => readdirSync(join(ROOT, d)).filter((f) => f.endsWith('.ts')).map((f) => join(d, f)));

describe('memory cluster and controllers portability', () => {
  it('bundle for the browser without Node built-ins', async () => {
    const result = await build({
      stdin: { contents: files.map((f) => `export * from './${f}';`).join('\n'), resolveDir: ROOT, loader: 'ts' },
      bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent',
    }).then(() => [], (e: { errors: { text: string }[] }) => e.errors.map((x) => x.text));
    expect(result).toEqual([]);
  });

  it.each(files)('%s never reads the wall clock', (file) => {
    expect(readFileSync(join(ROOT, file), 'utf8')).not.toMatch(/Date\.now\(|new Date\(\)|performance\.now\(|from 'node:/);
  });
});
