// SPDX-License-Identifier: Apache-2.0
// `kpol simulate`: the real runtime (every controller, the rule graphs, the simulated cloud and
// node agent) stepped through simulated time on a FakeClock, recording a Timeline.
import type { PolicySpec } from '../../../rules/model.js';
import { FakeClock } from '../../core/clock.js';
import type { ClusterIndex } from '../../core/cluster/state.js';
import type { KubeObject, NodePool } from '../../core/cluster/types.js';
import { Runtime } from '../../control/runtime/runtime.js';
import { poolAllowedWithScopes } from '../../core/eval/budget-scopes.js';
import { calendarFromSamples } from './calendar-rows.js';
import { heldAtZero } from './held-budgets.js';
import type { BlockedCount, DisruptionRecord, HeldCount, Sample, Timeline } from './timeline.js';
import type { WorkloadAction, WorkloadEvent } from './workload.js';
import { ownRecord } from '../../core/cluster/own-keys.js';
import { FirstBlocks } from './first-blocks.js';

export interface SimulateOptions {
  objects: readonly KubeObject[];
  policies: readonly PolicySpec[];
  fromMs: number;
  forMs: number;
  stepMs: number;
  workload?: readonly WorkloadEvent[];
  /** How often to record a Sample (default: every 10 minutes, at least every step). */
  sampleEveryMs?: number;
  onProgress?: (doneMs: number, totalMs: number) => void;
  /** Wall time source for the summary only (the simulation never reads it). */
  wallMs?: () => number;
  /**
   * Reuse node verdicts, whole evaluations and prepared node facts across ticks (default). Off
   * only to check that reuse changes no decision and to measure what it saves.
   */
  reuseVerdicts?: boolean;
  /**
   * Keep scheduling-simulation state across ticks (default; Runtime.incrementalScheduling). Off only
   * to check that it changes no decision and to measure what it saves.
   */
  incrementalScheduling?: boolean;
  /**
   * The simulated world's controllers read only what changed since their last pass (default;
   * Runtime.incrementalControllers). Off only to check that it changes no decision and to measure
   * what it saves.
   */
  incrementalControllers?: boolean;
  /**
   * The reconciler's and termination's scans read only what changed since their last pass
   * (default; Runtime.incrementalScans). Off only to check that it changes no decision and to
   * measure what it saves.
   */
  incrementalScans?: boolean;
  /** Called after every tick with the runtime, before the clock moves on (tests that watch the cluster). */
  onTick?: (rt: Runtime) => void | Promise<void>;
}

/** The zone each NodePool's policy thinks in: the first window zone other than UTC, else UTC. */
function poolZones(rt: Runtime, pools: readonly NodePool[]): Record<string, string> {
  const out = ownRecord<string>(); // keyed by NodePool names, which may be `constructor`
  for (const np of pools) {
    const policy = rt.policies.find((p) => p.target.kind === 'names' && p.target.names.includes(np.metadata.name));
    const zones = [
      ...(policy?.budgets.map((b) => b.window?.timeZone) ?? []),
      ...(policy?.maintenanceWindows.flatMap((w) => w.windows.map((x) => x.timeZone)) ?? []),
    ];
    out[np.metadata.name] = zones.find((z) => z && z !== 'UTC') ?? 'UTC';
  }
  return out;
}

/** A NodeClaim launched and not yet registered (no Node), and not being deleted. */
const startingUp = (index: ClusterIndex): boolean =>
  index.stateNodes.some(
    (sn) =>
      sn.nodeClaim !== undefined && sn.node === undefined && sn.nodeClaim.metadata.deletionTimestamp === undefined,
  );

async function apply(rt: Runtime, action: WorkloadAction): Promise<void> {
  if ('scale' in action) {
    const { name, namespace = 'default', replicas } = action.scale;
    await rt.cluster.patch({ kind: 'ReplicaSet', name, namespace }, { spec: { replicas } });
  } else if ('drift' in action) {
    await rt.cluster.patch(
      { kind: 'NodePool', name: action.drift.nodePool },
      { spec: { template: { metadata: { annotations: { 'kpol.dev/drift-nonce': String(rt.clock.now()) } } } } },
    );
  } else {
    const instances = (await rt.cloud.list()).filter(
      (i) =>
        i.state === 'running' && (!action.interrupt.capacityType || i.capacityType === action.interrupt.capacityType),
    );
    for (const i of instances.slice(0, action.interrupt.count)) rt.cloud.interrupt(i.providerID);
  }
}

function due(e: WorkloadEvent, fromMs: number, before: number, now: number): boolean {
  const first = fromMs + e.atMs;
  if (now < first) return false;
  if (!e.everyMs) return before < first && first <= now;
  const k = Math.floor((now - first) / e.everyMs);
  return first + k * e.everyMs > before;
}

// eslint-disable-next-line complexity -- the run's options resolved in one place, each a defaulting line
export async function simulate(o: SimulateOptions): Promise<Timeline> {
  const wall = o.wallMs ?? (() => 0);
  const started = wall();
  const clock = new FakeClock(o.fromMs);
  const rt = new Runtime({ clock, objects: o.objects, policies: o.policies });
  rt.evaluator.reuse = o.reuseVerdicts ?? true;
  rt.evaluator.prepared = o.reuseVerdicts ?? true;
  rt.incrementalScheduling = o.incrementalScheduling ?? true;
  rt.incrementalControllers = o.incrementalControllers ?? true;
  rt.incrementalScans = o.incrementalScans ?? true;
  const sampleEvery = Math.max(o.sampleEveryMs ?? 10 * 60_000, o.stepMs);
  const samples: Sample[] = [];
  const disruptions: DisruptionRecord[] = [];
  const blocked = new Map<string, BlockedCount>();
  const held = new Map<string, HeldCount>();
  const end = o.fromMs + o.forMs;
  let ticks = 0;
  let nextSample = o.fromMs + sampleEvery; // after the first sample
  let last = o.fromMs - 1;
  /** Each evaluation's first reasons by code: how many nodes, and the first node's message. */
  const firstBlocks = new FirstBlocks();
  const counted = (code: string) => blocked.has(code);
  while (clock.now() < end) {
    const now = clock.now();
    for (const e of o.workload ?? []) if (due(e, o.fromMs, last, now)) await apply(rt, e.action);
    last = now;
    const r = await rt.tick();
    // The cloud's call log (for tests) keeps every listing it answered: over a week of ticks
    // that is millions of instance snapshots nobody reads here.
    rt.cloud.clearCalls();
    ticks++;
    const ev = r.disruption.evaluation;
    const c = r.disruption.started;
    if (c) {
      for (const pool of new Set(c.candidates.map((x) => x.nodePool))) {
        disruptions.push({
          at: now,
          method: c.method,
          reason: c.reason,
          decision: c.replacements.length ? 'replace' : 'delete',
          nodePool: pool,
          nodes: c.candidates.filter((x) => x.nodePool === pool).map((x) => x.node),
          replacements: c.replacements.map((x) => x.instanceTypes[0] ?? ''),
        });
      }
    }
    for (const name of r.expired)
      disruptions.push({
        at: now,
        method: 'Expiration',
        reason: 'Expired',
        decision: 'delete',
        nodePool: '',
        nodes: [name],
        replacements: [],
      });
    for (const name of r.interrupted)
      disruptions.push({
        at: now,
        method: 'Interruption',
        reason: 'Interrupted',
        decision: 'delete',
        nodePool: '',
        nodes: [name],
        replacements: [],
      });
    // A reused evaluation (a quiet tick) blocks the same nodes for the same reasons as the last
    // tick, and one made from it by a few changed verdicts differs by those alone (first-blocks.ts):
    // its first reasons are counted without reading its 1,000s of node verdicts.
    // Counted per code, not per node: the same totals, examples and first-seen order as counting
    // node by node, for a few codes a tick instead of every blocked node.
    for (const [code, b] of firstBlocks.of(ev.nodes, counted)) {
      const entry = blocked.get(code) ?? { code, count: 0, example: b.message };
      entry.count += b.count;
      blocked.set(code, entry);
    }
    for (const h of heldAtZero(ev)) {
      const key = `${h.nodePool}\0${h.reason}\0${h.cause}`;
      const entry = held.get(key) ?? { nodePool: h.nodePool, reason: h.reason, cause: h.cause, count: 0, example: '' };
      entry.count++;
      entry.example = h.message;
      held.set(key, entry);
    }
    const first = samples.length === 0;
    const index = first || now >= nextSample ? await rt.view.current() : undefined;
    // The first sample waits (at most one sampling interval, and never past the last tick)
    // until the machines launched at start-up have registered: a cluster seeded with
    // workloads and no nodes would otherwise start the node chart and the summary's cost at 0.
    const waitForStartUp = first && now - o.fromMs < sampleEvery && now + o.stepMs < end;
    if (index && !(waitForStartUp && startingUp(index))) {
      nextSample = first
        ? o.fromMs + (Math.floor((now - o.fromMs) / sampleEvery) + 1) * sampleEvery
        : nextSample + sampleEvery;
      // Keyed by NodePool names: a pool named `constructor` is counted, not Object's member.
      const nodesByPool = ownRecord<number>();
      for (const sn of index.stateNodes) {
        const pool = sn.node?.metadata.labels?.['karpenter.sh/nodepool'];
        if (sn.node && pool) nodesByPool[pool] = (nodesByPool[pool] ?? 0) + 1;
      }
      const allowed: Sample['allowed'] = ownRecord();
      // Cluster budgets (issue 15) fold into the pools they cover (budget-scopes.ts).
      for (const pool of Object.keys(ev.nodePools)) allowed[pool] = poolAllowedWithScopes(ev, pool);
      samples.push({
        at: now,
        nodes: index.snapshot.nodes.length,
        nodesByPool,
        costPerHour: rt.cloud.costPerHour(),
        pendingPods: index.unboundPods.filter((p) => !p.metadata.deletionTimestamp).length,
        allowed,
      });
    }
    await o.onTick?.(rt);
    o.onProgress?.(now + o.stepMs - o.fromMs, o.forMs);
    clock.advance(o.stepMs);
  }
  const byReason: Record<string, number> = {};
  for (const d of disruptions) byReason[d.reason] = (byReason[d.reason] ?? 0) + d.nodes.length;
  const pools = (await rt.view.current()).snapshot.nodePools;
  return {
    from: o.fromMs,
    to: end,
    stepMs: o.stepMs,
    ticks,
    samples,
    disruptions,
    calendar: calendarFromSamples(samples, poolZones(rt, pools), sampleEvery),
    blocked: [...blocked.values()].sort((a, b) => b.count - a.count),
    held: [...held.values()].sort((a, b) => b.count - a.count),
    events: rt.events.list().map((e) => ({
      at: e.at,
      type: e.type,
      reason: e.reason,
      object: `${e.object.kind}/${e.object.namespace ? `${e.object.namespace}/` : ''}${e.object.name}`,
      message: e.message,
    })),
    summary: {
      disruptionsByReason: byReason,
      startCostPerHour: samples[0]?.costPerHour ?? 0,
      endCostPerHour: samples.at(-1)?.costPerHour ?? 0,
      wallSeconds: (wall() - started) / 1000,
    },
  };
}
