// SPDX-License-Identifier: Apache-2.0
// The report and the observability core run in the browser too: no Node built-ins, no wall clock.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;

async function browserBuildErrors(entries: string[]): Promise<string[]> {
  try {
    await build({
      stdin: { contents: entries.map((e) => `export * from './${e}';`).join('\n'), resolveDir: ROOT, loader: 'ts' },
      bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent',
    });
    return [];
  } catch (e) {
    return (e as { errors: { text: string }[] }).errors.map((x) => x.text);
  }
}

const portable = [
  ...readdirSync(join(ROOT, 'src/observe')).filter((f) => f.endsWith('.ts')).map((f) => `src/observe/${f}`),
  ...readdirSync(join(ROOT, 'src/simulate')).filter((f) => /^report.*\.ts$/.test(f)).map((f) => `src/simulate/${f}`),
];

describe('portable observability and report', () => {
  it('bundle for the browser without Node built-ins', async () => {
    expect(portable.length).toBeGreaterThan(10);
    expect(await browserBuildErrors(portable)).toEqual([]);
  });

  it('the bundle check fails on a Node built-in (control: the status server)', async () => {
    expect((await browserBuildErrors(['src/server/status-server.ts'])).join('\n')).toMatch(/node:http/);
  });

  it.each(portable)('%s never reads the wall clock', (file) => {
    expect(readFileSync(join(ROOT, file), 'utf8')).not.toMatch(/Date\.now\(|new Date\(\)|performance\.now\(/);
  });
});
