// SPDX-License-Identifier: Apache-2.0
// `kpol check` on one line of garbage of 0.25, 0.5 and 1 MB (issue 13: a 105 KB line ran out of
// memory at 4.3 GB): wall time and peak RSS of whole processes, per MB of input, with how they
// grow from 0.25 to 1 MB (linear is 4×, quadratic 16×). Baselines from the same rounds:
// `node -e 0` and check of a valid policy of 1 MB. Each round runs every input once, in turn,
// so a change in the machine's load touches them all alike; medians of the rounds are reported.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli } from '../../src/edge/cli/build.mjs';
import { buildState } from '../../src/edge/cli/build-state.mjs';
import { garbageLine, longStatementLine, repeatedPolicyLine } from '../support/garbage.js';
import { generatePolicy } from './generate.js';
import type { Line } from './reconciler.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = `${ROOT}src/edge/cli/bin.mjs`;
const REPORT_RSS = `${ROOT}test/bench/report-rss.mjs`;
const MB = 1 << 20;
const SIZES = [0.25, 0.5, 1];

interface Sample {
  ms: number;
  rssMiB: number;
  outBytes: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** One whole process: wall time, peak RSS (from report-rss.mjs) and bytes printed. */
function measure(args: string[], dir: string): Sample {
  const rssFile = join(dir, 'rss');
  const t = performance.now();
  const r = spawnSync(process.execPath, ['--import', REPORT_RSS, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: { ...process.env, KPOL_BENCH_RSS_OUT: rssFile, NO_COLOR: '1' },
  });
  const ms = performance.now() - t;
  if (r.status !== 0 && r.status !== 1) {
    throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(0, 2000)}`);
  }
  return { ms, rssMiB: Number(readFileSync(rssFile, 'utf8')) / 1024, outBytes: r.stdout.length + r.stderr.length };
}

/** A valid policy of about `bytes`, the baseline: the same size of input that checks clean. */
function validPolicy(bytes: number): string {
  let lines = 1000;
  let text = generatePolicy(lines);
  while (text.length < bytes) text = generatePolicy((lines *= 2));
  return text;
}

export async function garbageCheckBench(rounds: number): Promise<Line[]> {
  if (!buildState().fresh) await buildCli();
  const from = buildState().fresh ? 'the build' : 'the sources (no fresh build)';
  const dir = mkdtempSync(join(tmpdir(), 'kpol-bench-garbage-'));
  try {
    const write = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const kinds = [
      { name: 'garbage line (kpol words, stray characters)', make: garbageLine },
      { name: '`policy ` repeated on one line (the issue)', make: repeatedPolicyLine },
      { name: 'one statement of errors (`budget 1 for A , , …`)', make: longStatementLine },
    ];
    const runs = new Map<string, { args: string[]; samples: Sample[] }>();
    const add = (key: string, args: string[]) => runs.set(key, { args, samples: [] });
    add('node', ['-e', '0']);
    add('valid', [BIN, 'check', write('valid.kpol', validPolicy(MB))]);
    for (const [k, kind] of kinds.entries()) {
      for (const size of SIZES) add(`${k}:${size}`, [BIN, 'check', write(`${k}-${size}.kpol`, kind.make(size * MB))]);
    }
    for (let round = -1; round < rounds; round++) {
      // round -1 warms the file cache and is not counted
      for (const run of runs.values()) {
        const s = measure(run.args, dir);
        if (round >= 0) run.samples.push(s);
      }
    }
    const at = (key: string) => {
      const samples = runs.get(key)!.samples;
      const of = (f: (s: Sample) => number) => median(samples.map(f));
      return { ms: of((s) => s.ms), rssMiB: of((s) => s.rssMiB), outBytes: of((s) => s.outBytes) };
    };
    const node = at('node');
    const valid = at('valid');
    const fmt = (x: number, d = 1) => x.toFixed(d);
    const lines: Line[] = [];
    for (const [k, kind] of kinds.entries()) {
      const sizes = SIZES.map((size) => at(`${k}:${size}`));
      const small = sizes[0]!;
      const big = sizes.at(-1)!;
      // Per MB: the growth from 0.25 to 1 MB, so process start-up (the same for both) drops out.
      const msPerMB = (big.ms - small.ms) / 0.75;
      const rssPerMB = (big.rssMiB - small.rssMiB) / 0.75;
      const each = (f: (s: Sample) => string) => sizes.map((s, i) => `${SIZES[i]} MB ${f(s)}`).join(', ');
      const growth = (f: (s: Sample) => number) => fmt(f(big) / f(small), 2);
      lines.push({
        name: `kpol check, ${kind.name}: time`,
        value: `${fmt(msPerMB, 0)} ms/MB`,
        goal: 'linear (4×)',
        ratio:
          `${each((s) => `${fmt(s.ms, 0)} ms`)}; 1 MB / 0.25 MB ${growth((s) => s.ms)}×, ` +
          `above node -e 0 (${fmt(node.ms, 0)} ms) ${growth((s) => s.ms - node.ms)}×; ` +
          `${fmt(big.ms / valid.ms, 1)}× check of a valid 1 MB policy (${fmt(valid.ms, 0)} ms); ` +
          `median of ${rounds}, from ${from}`,
      });
      lines.push({
        name: `kpol check, ${kind.name}: peak RSS`,
        value: `${fmt(rssPerMB, 0)} MiB/MB`,
        goal: 'linear, ≤ 512 MiB at 1 MB',
        ratio:
          `${each((s) => `${fmt(s.rssMiB, 0)} MiB`)}; above node -e 0 (${fmt(node.rssMiB, 0)} MiB) ` +
          `${growth((s) => s.rssMiB - node.rssMiB)}×; valid 1 MB policy ${fmt(valid.rssMiB, 0)} MiB`,
      });
      lines.push({
        name: `kpol check, ${kind.name}: output`,
        value: `${fmt(big.outBytes / 1024)} KiB`,
        goal: 'bounded',
        ratio: each((s) => `→ ${fmt(s.outBytes / 1024)} KiB`),
      });
    }
    return lines;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
