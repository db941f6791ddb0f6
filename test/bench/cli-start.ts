// SPDX-License-Identifier: Apache-2.0
// Whole `kpol` processes, as a shell starts them (`node src/edge/cli/bin.mjs …`, the package's bin),
// against `node -e 0` measured in the same rounds: --help, check of the shipped example, and
// eval of the demo snapshot. Each round runs every command once, in turn, so a change in the
// machine's load touches them all alike; the median of the rounds is reported. The build is
// brought up to date first (as `npm start` / `npm test` do), and the line says when kpol ran
// from its sources instead.
import { spawnSync } from 'node:child_process';
import { buildCli } from '../../src/edge/cli/build.mjs';
import { buildState } from '../../src/edge/cli/build-state.mjs';
import type { Line } from './reconciler.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = `${ROOT}src/edge/cli/bin.mjs`;
const EXAMPLE = `${ROOT}rules/examples/business-hours.kpol`;
const DEMO = `${ROOT}rules/examples/demo/cluster.yaml`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function wallMs(args: string[]): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

export async function cliStartBench(rounds: number): Promise<Line[]> {
  if (!buildState().fresh) await buildCli();
  const from = buildState().fresh ? 'the build' : 'the sources (no fresh build)';
  const commands = [
    { name: 'kpol --help', args: [BIN, '--help'], goal: '≤ 4× (aim 2×)' },
    { name: 'kpol check rules/examples/business-hours.kpol', args: [BIN, 'check', EXAMPLE], goal: '≤ 4× (aim 2×)' },
    {
      name: 'kpol eval (demo snapshot)',
      args: [BIN, 'eval', '--cluster', DEMO, '--policy', EXAMPLE, '--at', '2026-11-23T10:00:00Z'],
      goal: '≤ 8×',
    },
  ];
  const baseline = ['-e', '0'];
  const times = new Map<string[], number[]>([
    [baseline, []],
    ...commands.map((c) => [c.args, []] as [string[], number[]]),
  ]);
  for (let round = -1; round < rounds; round++) {
    // round -1 warms the file cache and is not counted
    for (const [args, samples] of times) {
      const ms = wallMs(args);
      if (round >= 0) samples.push(ms);
    }
  }
  const base = median(times.get(baseline)!);
  return commands.map((c) => {
    const ms = median(times.get(c.args)!);
    return {
      name: c.name,
      value: `${ms.toFixed(0)} ms`,
      goal: c.goal,
      ratio: `${(ms / base).toFixed(1)}× node -e 0 (${base.toFixed(0)} ms), median of ${rounds}; from ${from}`,
    };
  });
}
