// SPDX-License-Identifier: Apache-2.0
// The reconciler's own scans in the tick after one pod event, timed alone (the tick around them
// is dominated by the simulated world on a shared machine): pod events, expiration, the
// disruption loop's clean-up, the Unconsolidatable batch, termination and the rate-budget check,
// with Runtime.incrementalScans on and off in alternating blocks of ticks of the same run (the
// first tick of each block, which switches paths, not counted):
//   node --import tsx test/bench/scan-cpu.ts [nodes] [ticks]
import { quietRuntime } from './reconciler.js';

const nodes = Number(process.argv[2] ?? 5000);
const ticks = Number(process.argv[3] ?? 15);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const { rt, clock } = await quietRuntime(nodes, Math.max(1, Math.round(nodes / 100)));
const spent = new Map<string, number>();
/**
 * Wraps `obj[name]` so the wall time of each call adds up under `label`. Synchronous parts are
 * timed where there are any (expiration's scan, the clean-up's scan); an asynchronous call's time
 * also holds the watch deliveries that run while it waits.
 */
function timed(obj: object, name: string, label: string): void {
  const o = obj as Record<string, (...args: unknown[]) => unknown>;
  const f = o[name]!.bind(obj);
  o[name] = (...args: unknown[]) => {
    const t = performance.now();
    const r = f(...args);
    const add = () => spent.set(label, (spent.get(label) ?? 0) + performance.now() - t);
    if (r instanceof Promise) return r.finally(add);
    add();
    return r;
  };
}
const parts = rt as unknown as Record<string, object>;
timed(parts.podEvents!, 'reconcile', 'pod events');
timed(parts.expiration!, 'dueNow', 'expiration');
timed(parts.termination!, 'reconcile', 'termination');
timed((parts.disruption as { taints: object }).taints, 'scan', 'clean-up');
timed(parts.disruption!, 'publishUnconsolidatable', 'unconsolidatable');
timed(rt, 'ratedPool', 'rated pools');

const pods = (await rt.view.current()).snapshot.pods;
const runs = { on: new Map<string, number[]>(), off: new Map<string, number[]>() };
const BLOCK = 4;
for (let i = 0; i < 2 * BLOCK * Math.ceil(ticks / (BLOCK - 1)) + 2 * BLOCK; i++) {
  const mode = Math.floor(i / BLOCK) % 2 === 0 ? 'on' : 'off';
  rt.incrementalScans = mode === 'on';
  const p = pods[(i * 7919) % pods.length]!;
  const key = { kind: 'Pod' as const, namespace: p.metadata.namespace!, name: p.metadata.name };
  await rt.cluster.patch(key, { metadata: { labels: { 'bench.kpol.dev/event': String(i) } } });
  spent.clear();
  await rt.tick();
  clock.advance(10_000);
  if (i < 2 * BLOCK || i % BLOCK === 0) continue; // the first ticks of each path compile it
  let total = 0;
  for (const [label, ms] of spent) {
    total += ms;
    runs[mode].set(label, [...(runs[mode].get(label) ?? []), ms]);
  }
  runs[mode].set('total', [...(runs[mode].get('total') ?? []), total]);
}
for (const label of runs.off.keys())
  console.log(
    `${label.padEnd(18)} incremental ${median(runs.on.get(label) ?? []).toFixed(3)} ms, ` +
      `full ${median(runs.off.get(label)!).toFixed(3)} ms (medians of ${ticks})`,
  );
