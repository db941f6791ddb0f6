// SPDX-License-Identifier: Apache-2.0
// Prints how long startControlPlane() and stop() take, per run and per step:
//   npx tsx test/k8s/control-plane/measure-startup.ts [runs=3]
// A measurement for people, not a test: timings depend on the machine and its load.
import { ensureBuilt } from './ensure-built.js';
import { startControlPlane } from './start-control-plane.js';

async function main(): Promise<void> {
  await ensureBuilt();
  const runs = Number(process.argv[2] ?? 3);
  const starts: number[] = [];
  for (let i = 1; i <= runs; i++) {
    const t0 = performance.now();
    const cp = await startControlPlane({ log: (line) => process.stdout.write(`  run ${i}: ${line}\n`) });
    const started = performance.now() - t0;
    const t1 = performance.now();
    await cp.stop();
    const stopped = performance.now() - t1;
    starts.push(started);
    process.stdout.write(`run ${i}: start ${(started / 1000).toFixed(2)} s, stop ${(stopped / 1000).toFixed(2)} s\n`);
  }
  const sorted = [...starts].sort((a, b) => a - b);
  process.stdout.write(
    `start-up over ${runs} runs: min ${(sorted[0]! / 1000).toFixed(2)} s, ` +
      `median ${(sorted[Math.floor(runs / 2)]! / 1000).toFixed(2)} s, max ${(sorted.at(-1)! / 1000).toFixed(2)} s\n`,
  );
}

main().catch((err: Error) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
