// SPDX-License-Identifier: Apache-2.0
// The issue-16 simulation line for `npm run bench`: a simulated month of a large cluster at
// 1-minute steps (ReplicaSets, the generated cluster's drifted machines, a pool drifting every
// day and ReplicaSets scaling up and back every few hours), in CPU seconds. Its same-run
// baseline derives everything at every tick — every node's verdict and every scheduling
// simulation's input and every controller's scan (reuseVerdicts, incrementalScheduling,
// incrementalControllers and incrementalScans off) — over the first hours
// only, at the same cluster size: over the whole month it would take hours. The ratio compares
// those first hours with the same hours of the measured run.
import type { WorkloadEvent } from '../../src/edge/simulate/workload.js';
import { simulate } from '../../src/edge/simulate/simulated-run.js';
import { generateCluster } from './generate.js';
import type { Line } from './reconciler.js';

const T0 = Date.parse('2026-11-23T12:00:00Z');
const HOUR = 3_600_000;

const cpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** A pool drifts every day; a ReplicaSet of another pool doubles for an hour every 6 hours. */
function busyWorkload(pools: number, nodesPerPool: number): WorkloadEvent[] {
  const out: WorkloadEvent[] = [];
  out.push({ atMs: 2 * HOUR, everyMs: 24 * HOUR, action: { drift: { nodePool: `pool-${pools > 1 ? 1 : 0}` } } });
  const p = pools > 2 ? 2 : 0;
  const rs = { name: `app-${p}-k0`, namespace: `team-${p % 10}` };
  out.push({ atMs: 3 * HOUR, everyMs: 6 * HOUR, action: { scale: { ...rs, replicas: 2 * nodesPerPool } } });
  out.push({ atMs: 4 * HOUR, everyMs: 6 * HOUR, action: { scale: { ...rs, replicas: nodesPerPool } } });
  return out;
}

/**
 * `nodes` machines (50 per pool, 10 pods each) for `days` days; the baseline runs the first
 * `baselineHours` hours deriving everything.
 */
export async function monthBench(nodes: number, days: number, baselineHours: number): Promise<Line[]> {
  const pools = Math.max(1, Math.round(nodes / 50));
  const objects = () => generateCluster({ pools, nodes, pods: nodes * 10, replicaSets: true });
  const workload = busyWorkload(pools, Math.ceil(nodes / pools));
  const baselineMs = Math.min(days * 24, baselineHours) * HOUR;
  const firstHoursCpu = async (o: {
    reuseVerdicts: boolean;
    incrementalScheduling: boolean;
    incrementalControllers: boolean;
    incrementalScans: boolean;
  }) => {
    const c = cpuSeconds();
    await simulate({ objects: objects(), policies: [], fromMs: T0, forMs: baselineMs, stepMs: 60_000, workload, ...o });
    return cpuSeconds() - c;
  };
  // Warm-up (compiling the code paths every run takes) on a small cluster, so the first
  // measured run does not pay for it alone.
  for (const on of [false, true])
    await simulate({
      objects: generateCluster({ pools: 2, nodes: 60, pods: 600, replicaSets: true }),
      policies: [],
      fromMs: T0,
      forMs: 3 * HOUR,
      stepMs: 60_000,
      workload: busyWorkload(2, 30),
      reuseVerdicts: on,
      incrementalScheduling: on,
      incrementalControllers: on,
      incrementalScans: on,
    });
  const baseline = await firstHoursCpu({
    reuseVerdicts: false,
    incrementalScheduling: false,
    incrementalControllers: false,
    incrementalScans: false,
  });
  // Before issue 16: verdicts reused, every scheduling simulation's input derived again.
  const verdictsOnly = await firstHoursCpu({
    reuseVerdicts: true,
    incrementalScheduling: false,
    incrementalControllers: false,
    incrementalScans: false,
  });
  const c = cpuSeconds();
  let firstHours = 0;
  // The costliest simulated hour, so the line says where the time goes (the generated machines
  // were made together, so they reach Karpenter's default expireAfter of 720 h together).
  const busiest = { hour: 0, cpu: 0 };
  let hour = { index: 0, from: c };
  const timeline = await simulate({
    objects: objects(),
    policies: [],
    fromMs: T0,
    forMs: days * 24 * HOUR,
    stepMs: 60_000,
    workload,
    onProgress: (done) => {
      const now = cpuSeconds();
      if (!firstHours && done >= baselineMs) firstHours = now - c;
      if (done < (hour.index + 1) * HOUR) return;
      if (now - hour.from > busiest.cpu) Object.assign(busiest, { hour: hour.index, cpu: now - hour.from });
      hour = { index: Math.floor(done / HOUR), from: now };
    },
  });
  const s = cpuSeconds() - c;
  const acted = timeline.disruptions.reduce((n, d) => n + d.nodes.length, 0);
  return [
    {
      name: `simulation, ${days} d at 1 min steps (${nodes} nodes, ReplicaSets, drift, scaling), CPU`,
      value: `${s.toFixed(1)} s`,
      goal: '≤ 60 s (30 d, 5k nodes)',
      ratio:
        `${(timeline.ticks / s).toFixed(0)} ticks/s, ${acted} nodes disrupted, costliest hour ` +
        `${busiest.hour}–${busiest.hour + 1} h (${busiest.cpu.toFixed(1)} s); baseline at reduced scale ` +
        `(first ${baselineMs / HOUR} h only): ${firstHours.toFixed(1)} s vs ${baseline.toFixed(1)} s ` +
        `deriving everything every tick (${(baseline / firstHours).toFixed(1)}×), ${verdictsOnly.toFixed(1)} s ` +
        `with only verdicts reused (${(verdictsOnly / firstHours).toFixed(1)}×)`,
    },
  ];
}
