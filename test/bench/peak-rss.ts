// SPDX-License-Identifier: Apache-2.0
// Peak RSS of the controller at the scale, each scenario in a process of its own (the
// bench process itself has built several clusters by the end, which says nothing about one
// controller): `node --import tsx peak-rss.ts quiet|consolidation NODES` prints maxRSS in MiB.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { consolidationPassBench } from './consolidation.js';
import { quietRuntime, type Line } from './reconciler.js';

const SELF = fileURLToPath(import.meta.url);

async function scenario(which: string, nodes: number): Promise<void> {
  const pools = Math.max(1, Math.round(nodes / 50));
  if (which === 'quiet') {
    const { rt, clock } = await quietRuntime(nodes, pools);
    for (let i = 0; i < 10; i++) {
      await rt.tick();
      clock.advance(10_000);
    }
  } else {
    await consolidationPassBench(nodes, pools);
  }
  process.stdout.write(String(process.resourceUsage().maxRSS / 1024));
}

/** Runs each scenario in a child process and reports its peak RSS. */
export function peakRssBench(nodes: number): Line[] {
  const run = (which: string) =>
    Number(
      execFileSync(process.execPath, ['--import', 'tsx', SELF, which, String(nodes)], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .at(-1),
    );
  const quiet = run('quiet');
  const pass = run('consolidation');
  return [
    {
      name: `peak RSS, controller alone (${nodes} nodes, ${nodes * 30} pods)`,
      value: `${Math.max(quiet, pass).toFixed(0)} MiB`,
      goal: '≤ 1024 MiB',
      ratio:
        `steady ticks ${quiet.toFixed(0)} MiB; consolidation pass ${pass.toFixed(0)} MiB (each in ` +
        `its own process)`,
    },
  ];
}

if (process.argv[1] === SELF) await scenario(process.argv[2], Number(process.argv[3]));
