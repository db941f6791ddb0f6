// SPDX-License-Identifier: Apache-2.0
// The long snapshot fuzz run (issue 13): mutated snapshots through `kpol eval --cluster`
// in-process, as test/fuzz/snapshots.test.ts does, but for as many inputs as asked.
//
// usage: npx tsx test/fuzz/long-snapshots.ts [COUNT=100000] [SEED=1] [--out DIR]
//
// Prints progress every 1,000 inputs and a final line of figures; each failing case is written
// to DIR (default: a temporary directory) as JSON, with its verdict. Exit 1 when any failed.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { caseText, describeCase, snapshotCase, SnapshotRunner } from './snapshot-mutations.js';

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = outAt >= 0 ? args.splice(outAt, 2)[1] : mkdtempSync(join(tmpdir(), 'kpol-long-snapshots-'));
const count = Number(args[0] ?? 100_000);
const seed = Number(args[1] ?? 1);
if (!Number.isSafeInteger(count) || count <= 0 || !Number.isSafeInteger(seed)) {
  console.error('usage: npx tsx test/fuzz/long-snapshots.ts [COUNT=100000] [SEED=1] [--out DIR]');
  process.exit(2);
}
mkdirSync(out, { recursive: true });

const BATCH = 1_000; // cases drawn per fast-check sample: batch k uses seed + k, so any batch reruns alone
const runner = new SnapshotRunner();
const figures = { inputs: 0, exit0: 0, exit1: 0, failures: 0 };
const started = performance.now();
const line = (): string => {
  const s = (performance.now() - started) / 1000;
  return (
    `${figures.inputs} inputs: ${figures.exit0} evaluated (exit 0), ${figures.exit1} refused (exit 1), ` +
    `${figures.failures} failures (crash, internal error, other exit, unlocated message); ${s.toFixed(0)} s, ` +
    `${(figures.inputs / s).toFixed(1)} inputs/s, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`
  );
};

for (let batch = 0; figures.inputs < count; batch++) {
  const cases = fc.sample(snapshotCase, { seed: seed + batch, numRuns: Math.min(BATCH, count - figures.inputs) });
  for (const c of cases) {
    const { text, ext } = caseText(c);
    let problem: string | undefined;
    let code = -1;
    let stderr = '';
    try {
      ({ problem, code, stderr } = await runner.run(text, ext));
    } catch (e) {
      problem = `threw: ${(e as Error).stack ?? String(e)}`;
    }
    figures.inputs++;
    if (problem) {
      figures.failures++;
      writeFileSync(
        join(out, `failure-${figures.failures}.json`),
        JSON.stringify(
          { seed: seed + batch, problem, code, stderr: stderr.slice(0, 4000), case: describeCase(c) },
          null,
          2,
        ),
      );
    } else if (code === 0) figures.exit0++;
    else figures.exit1++;
    if (figures.inputs % 1_000 === 0) console.log(line());
  }
}
runner.close();
console.log(`done: ${line()}; failures in ${out}`);
process.exit(figures.failures ? 1 : 0);
