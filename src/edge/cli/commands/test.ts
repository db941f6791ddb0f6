// SPDX-License-Identifier: Apache-2.0
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { renderMismatch } from '../../fixtures/match.js';
import { runFixtures } from '../../fixtures/run.js';
import { CliError, EXIT_FINDINGS, EXIT_OK } from '../shared/io.js';
import { parse, type Command } from './command.js';

const usage = `usage: kpol test [--coverage] [PATH…]

Runs decision fixtures (*.test.yaml; directories are searched recursively, default \`.\`),
prints failures as diffs and ends with \`N passed, N failed\`.`;

function collect(path: string, out: string[]): void {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new CliError(`cannot read ${path}: no such file or directory`);
  }
  if (st.isFile()) out.push(path);
  else
    for (const e of readdirSync(path).sort()) {
      if (e === 'node_modules' || e.startsWith('.')) continue;
      const p = join(path, e);
      if (statSync(p).isDirectory()) collect(p, out);
      else if (e.endsWith('.test.yaml') || e.endsWith('.test.yml')) out.push(p);
    }
}

export const testCommand: Command = {
  usage,
  async run(argv, io) {
    const { values, positionals } = parse(argv, { coverage: { type: 'boolean' } }, usage);
    const files: string[] = [];
    for (const p of positionals.length ? positionals : ['.']) collect(p, files);
    if (files.length === 0) throw new CliError('no *.test.yaml fixtures found');
    const { results, coverage } = await runFixtures(files);
    let failed = 0;
    for (const r of results) {
      const ok = !r.error && r.mismatches.length === 0;
      if (!ok) failed++;
      io.out(`${ok ? '✓' : '✗'} ${r.name}`);
      if (r.error) io.out(`    ${r.error}`);
      for (const m of r.mismatches) io.out(renderMismatch(m));
    }
    if (values.coverage) {
      const pct = coverage.total.length ? ((100 * coverage.fired.length) / coverage.total.length).toFixed(1) : '0.0';
      io.out(`\nrule coverage: ${coverage.fired.length}/${coverage.total.length} rules fired (${pct}%)`);
      for (const r of coverage.total.filter((x) => !coverage.fired.includes(x))) io.out(`  never fired: ${r}`);
    }
    io.out(`\n${results.length - failed} passed, ${failed} failed`);
    return failed ? EXIT_FINDINGS : EXIT_OK;
  },
};
