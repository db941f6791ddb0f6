// SPDX-License-Identifier: Apache-2.0
// Reconciler benchmarks for `npm run bench`: one tick of the full runtime when nothing
// changes, and a simulated week (the consolidation pass is in consolidation.ts).
// Each prints the ratio to a naive baseline measured in the same run.
import { Engine } from 'json-rules-engine';
import { FakeClock } from '../../src/clock.js';
import { podDoNotDisrupt } from '../../src/cluster/state.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { simulate } from '../../src/simulate/simulator.js';
import { generateCluster } from './generate.js';

const T0 = Date.parse('2026-11-23T12:00:00Z');

export interface Line {
  name: string;
  value: string;
  goal: string;
  ratio: string;
}

async function naivePerPodMs(rt: Runtime, at: number): Promise<number> {
  const engine = new Engine([{ conditions: { any: [{ fact: 'dnd', operator: 'equal', value: true }] }, event: { type: 'block' } }], { allowUndefinedFacts: true });
  const pods = (await rt.view.current()).snapshot.pods;
  const sample = pods.slice(0, 2000);
  const t = performance.now();
  for (const p of sample) await engine.run({ dnd: podDoNotDisrupt(p, at).active });
  return ((performance.now() - t) / sample.length) * pods.length;
}

/** The generated cluster, settled and past every pool's consolidateAfter. */
export async function settledRuntime(nodes: number, pools: number): Promise<{ rt: Runtime; clock: FakeClock }> {
  const clock = new FakeClock(T0);
  const rt = new Runtime({ clock, objects: generateCluster({ pools, nodes, pods: nodes * 30 }), policies: [] });
  // Let the cluster settle (the generated one has drifted nodes; a budget of 10% works through them).
  for (let i = 0; i < 3; i++) { await rt.tick(); clock.advance(10_000); }
  clock.advance(10 * 60_000); // past every pool's consolidateAfter
  return { rt, clock };
}

export async function tickBench(nodes: number, pools: number): Promise<Line[]> {
  const { rt, clock } = await settledRuntime(nodes, pools);
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await rt.tick();
    times.push(performance.now() - t);
    clock.advance(10_000);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  const naive = await naivePerPodMs(rt, clock.now());
  return [
    { name: `reconcile tick, median (${nodes} nodes, ${nodes * 30} pods, ${pools} pools)`, value: `${median.toFixed(0)} ms`, goal: '≤ 100 ms at 5k', ratio: `naive per-pod rule runs alone: ${naive.toFixed(0)} ms (${(naive / median).toFixed(2)}×)` },
  ];
}

export async function weekBench(nodes: number, days: number): Promise<Line[]> {
  const objects = generateCluster({ pools: Math.max(1, Math.round(nodes / 50)), nodes, pods: nodes * 10 });
  const t = performance.now();
  const timeline = await simulate({ objects, policies: [], fromMs: T0, forMs: days * 86_400_000, stepMs: 60_000 });
  const s = (performance.now() - t) / 1000;
  return [{ name: `simulation, ${days} d at 1 min steps (${nodes} nodes)`, value: `${s.toFixed(1)} s`, goal: 'seconds (7 d, 1k nodes)', ratio: `${(timeline.ticks / s).toFixed(0)} ticks/s; ${(s * 7 / days).toFixed(0)} s projected for 7 d` }];
}
