// SPDX-License-Identifier: Apache-2.0
// One core: grammar/, rules/ and the parts of src/ that do not talk to the OS must bundle for
// the browser (the editor's web worker) with no Node built-in. esbuild refuses `node:` and
// other built-in imports on platform "browser", so any such import fails this test.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;

async function bundleForBrowser(entries: string[]): Promise<string[]> {
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

describe('browser portability', () => {
  it('the parser, checker, compiler, engine, evaluator and snapshot loader bundle without Node built-ins', async () => {
    const errors = await bundleForBrowser([
      'grammar/parse.ts', 'grammar/format.ts', 'grammar/monarch.ts', 'grammar/print-diagnostics.ts',
      'rules/check.ts', 'rules/compile.ts', 'rules/engine.ts', 'rules/window.ts', 'rules/karpenter-import.ts', 'rules/karpenter-export.ts',
      'src/cluster/snapshot.ts', 'src/cluster/state.ts', 'src/facts/node-facts.ts', 'src/eval/evaluate-cluster.ts', 'src/eval/explain.ts',
    ]);
    expect(errors).toEqual([]);
  });
  it('detects a Node built-in (control: the CLI I/O module uses node:fs)', async () => {
    const errors = await bundleForBrowser(['src/cli/io.ts']);
    expect(errors.join('\n')).toMatch(/node:fs/);
  });
});

describe('injected clock', () => {
  const dirs = ['grammar', 'rules', 'src/cluster', 'src/facts', 'src/eval'];
  const files = dirs.flatMap((d) => readdirSync(join(ROOT, d), { recursive: true }).map(String).filter((f) => f.endsWith('.ts')).map((f) => join(d, f)));
  it.each(files)('%s never reads the wall clock', (file) => {
    expect(readFileSync(join(ROOT, file), 'utf8')).not.toMatch(/Date\.now\(|new Date\(\)|performance\.now\(/);
  });
});
