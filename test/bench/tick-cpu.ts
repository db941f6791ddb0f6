// SPDX-License-Identifier: Apache-2.0
// The quiet tick and the tick after one pod event in CPU time (process.cpuUsage) and wall time,
// alone, for comparing two trees on a shared machine and for `node --cpu-prof`:
//   node --import tsx test/bench/tick-cpu.ts [nodes] [ticks]
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { quietRuntime } from './reconciler.js';

const nodes = Number(process.argv[2] ?? 5000);
const ticks = Number(process.argv[3] ?? 15);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const { rt, clock } = await quietRuntime(nodes, Math.max(1, Math.round(nodes / 100)));
const measure = async (before?: (i: number) => Promise<void>) => {
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < ticks; i++) {
    await before?.(i);
    const c = process.cpuUsage();
    const t = performance.now();
    await rt.tick();
    wall.push(performance.now() - t);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
    clock.advance(10_000);
  }
  return `cpu ${median(cpu).toFixed(2)} ms, wall ${median(wall).toFixed(2)} ms`;
};
// KPOL_PROFILE=file.cpuprofile: a CPU profile of the one-event ticks alone (not the cluster's setup).
const profile = process.env.KPOL_PROFILE;
const session = profile ? new Session() : undefined;
const quietPhase = process.env.KPOL_PROFILE_PHASE === 'quiet';
if (session && quietPhase) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const quiet = await measure();
if (session && quietPhase) {
  const { profile: p } = await session.post('Profiler.stop');
  writeFileSync(profile!, JSON.stringify(p));
}
const pods = (await rt.view.current()).snapshot.pods;
if (session && !quietPhase) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const oneEvent = await measure(async (i) => {
  const p = pods[(i * 7919) % pods.length]!;
  const key = { kind: 'Pod' as const, namespace: p.metadata.namespace!, name: p.metadata.name };
  await rt.cluster.patch(key, { metadata: { labels: { 'bench.kpol.dev/event': String(i) } } });
});
console.log(`${nodes} nodes: quiet tick ${quiet}; tick after one pod event ${oneEvent} (medians of ${ticks})`);
if (session && !quietPhase) {
  const { profile: p } = await session.post('Profiler.stop');
  writeFileSync(profile!, JSON.stringify(p));
}
console.log('view builds', rt.view.builds);
