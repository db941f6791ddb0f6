import { simulate } from '../../src/edge/simulate/simulated-run.js';
import { generateCluster } from './generate.js';
import type { WorkloadEvent } from '../../src/edge/simulate/workload.js';
const HOUR = 3_600_000;
const nodes = Number(process.argv[2] ?? 5000), hours = Number(process.argv[3] ?? 30);
const T0 = Date.parse('2026-11-23T12:00:00Z');
const pools = Math.max(1, Math.round(nodes / 50)); const nodesPerPool = Math.ceil(nodes / pools);
const out: WorkloadEvent[] = [];
out.push({ atMs: 2 * HOUR, everyMs: 24 * HOUR, action: { drift: { nodePool: `pool-${pools > 1 ? 1 : 0}` } } });
const p = pools > 2 ? 2 : 0;
const rs = { name: `app-${p}-k0`, namespace: `team-${p % 10}` };
out.push({ atMs: 3 * HOUR, everyMs: 6 * HOUR, action: { scale: { ...rs, replicas: 2 * nodesPerPool } } });
out.push({ atMs: 4 * HOUR, everyMs: 6 * HOUR, action: { scale: { ...rs, replicas: nodesPerPool } } });
const objects = generateCluster({ pools, nodes, pods: nodes * 10, replicaSets: true });
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const c0 = cpu(); let mark = c0; let nextH = 1;
const tl = await simulate({ objects, policies: [], fromMs: T0, forMs: hours * HOUR, stepMs: 60_000, workload: out,
  onProgress: (done) => { if (done >= nextH * HOUR) { const c = cpu(); process.stdout.write(`h${nextH}:${(c - mark).toFixed(1)} `); mark = c; nextH++; } } });
console.log('\ncpu', (cpu() - c0).toFixed(1), 'ticks', tl.ticks, 'commands', tl.disruptions.length);
const by: Record<string, Record<string, number>> = {};
for (const d of tl.disruptions) { const h = Math.floor((d.at - T0) / HOUR / 6) * 6; (by[h] ??= {})[`${d.method}/${d.decision}`] = ((by[h] ??= {})[`${d.method}/${d.decision}`] ?? 0) + d.nodes.length; }
console.log(JSON.stringify(by));
console.log(tl.samples.filter((_, i) => i % 36 === 0).map((s) => `${s.nodes}n/${s.pendingPods}p/$${s.costPerHour.toFixed(0)}`).join(' '));
