// SPDX-License-Identifier: Apache-2.0
// `npm run bench -- --only karpenter`: the real Karpenter (KWOK provider, v1.15) and kpol, one
// single-node consolidation pass each over the same KWOK cluster. Karpenter's figure is its own
// `karpenter_voluntary_disruption_decision_evaluation_duration_seconds{consolidation_type="single"}`
// histogram, read from its /metrics in this run; kpol's is its pass timed in this process over the
// objects listed from the same API server a moment later. Not in the default groups: building the
// cluster takes minutes (KPOL_BENCH_KARPENTER_NODES, default 100).
//
// The cluster is built so that a single-node pass visits every candidate and finds nothing (the
// worst case, what times out at scale, and the only case the metric times without Karpenter's
// 15 s validation wait): `spread` Deployments with required hostname anti-affinity, one pod of
// each per node, every node the cheapest type for its pods, so no pod can move and no cheaper
// replacement exists. consolidateAfter 0s makes every node a candidate at once.
import { readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../k8s/control-plane/api-client.js';
import { ensureBuilt } from '../k8s/control-plane/ensure-built.js';
import { kubectlOk } from '../k8s/control-plane/kubectl.js';
import { startControlPlane, type ControlPlane } from '../k8s/control-plane/start-control-plane.js';
import { ensureKarpenterBuilt } from '../k8s/karpenter/ensure-built.js';
import { deployment, namespace, nodePool, toYaml } from '../k8s/karpenter/manifests.js';
import { parsePrometheusText, type Sample } from '../k8s/karpenter/metrics.js';
import { KARPENTER_VERSION } from '../k8s/karpenter/paths.js';
import {
  httpGetText,
  installKarpenterCrds,
  startKarpenter,
  type RunningKarpenter,
} from '../k8s/karpenter/start-karpenter.js';
import { loadSnapshot } from '../../src/core/cluster/snapshot.js';
import { indexCluster } from '../../src/core/cluster/state.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { EventLog } from '../../src/core/observe/event-log.js';
import { FakeClock } from '../../src/core/clock.js';
import { parseResourceList } from '../../src/core/cluster/resources.js';
import type { CapacityType, InstanceType, Offering } from '../../src/world/cloud/provider.js';
import { singleNode } from '../../src/control/reconciler/methods/single-node.js';
import type { Candidate } from '../../src/control/reconciler/methods/candidates.js';
import { SimulationPass } from '../../src/control/reconciler/simulation-pass.js';
import type { Line } from './reconciler.js';

const NS = 'bench';
const POOL = 'bench';
const HISTOGRAM = 'karpenter_voluntary_disruption_decision_evaluation_duration_seconds';
const SINGLE = { reason: 'underutilized', consolidation_type: 'single' };
const log = (s: string) => process.stderr.write(`karpenter bench: ${s}\n`);

export interface SideBySideOptions {
  /** KWOK nodes Karpenter launches (one per pod of each spread Deployment). */
  nodes: number;
  /** Spread Deployments, so pods per node. */
  podsPerNode: number;
  /** Karpenter single-node passes to observe after a cluster change (each needs a disruption loop, ≥ 10 s). */
  passes: number;
  /** kpol passes timed (the median is reported; the first, cold, too). */
  kpolRuns: number;
}

/** One observation of the histogram: its duration and when it ended (between two scrapes). */
interface Observation {
  seconds: number;
  /**
   * CPU seconds the Karpenter process used from the last scrape before the pass began to the
   * scrape that showed it ended (/proc/<pid>/stat: the pass plus up to one poll interval each side).
   */
  cpuSeconds: number;
  /** The scrape that first showed it. */
  seenAt: number;
  /** The scrape before (it ended after this). */
  previousAt: number;
  /** It stopped at Karpenter's 3-minute limit (the timeouts counter rose with it). */
  timedOut: boolean;
  /** The observation before it timed out, so this one visited candidates again (nothing marked consolidated). */
  afterTimeout: boolean;
}

export async function karpenterSideBySideBench(o: SideBySideOptions): Promise<Line[]> {
  await ensureBuilt();
  await ensureKarpenterBuilt();
  const began = Date.now();
  const stage = (what: string) => log(`${what} (${((Date.now() - began) / 1000).toFixed(0)} s)`);
  let cp: ControlPlane | undefined;
  let karpenter: RunningKarpenter | undefined;
  // One stop for the signal handler and the `finally` below: the second caller waits for the first.
  let stopping: Promise<void> | undefined;
  const stopAll = () =>
    (stopping ??= (async () => {
      await karpenter?.stop();
      await cp?.stop();
    })());
  // Ctrl-C or a kill: stop both process sets before exiting (their reaper would, a few seconds later).
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping Karpenter, KWOK and the control plane`);
    void stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    cp = await startControlPlane({ beforeControllers: installKarpenterCrds, timeoutMs: 180_000 });
    // Debug level: a timed-out single-node pass logs how many candidates it evaluated.
    karpenter = await startKarpenter({ kubeconfigPath: cp.kubeconfigPath, timeoutMs: 180_000, logLevel: 'debug' });
    stage('control plane, Karpenter and KWOK running');
    return await measure(o, cp, karpenter, stage);
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await stopAll();
    stage('everything stopped');
  }
}

async function measure(
  o: SideBySideOptions,
  cp: ControlPlane,
  karpenter: RunningKarpenter,
  stage: (what: string) => void,
): Promise<Line[]> {
  const kube = cp.kubeconfigPath;
  const api = ApiClient.fromKubeconfig(kube);
  const pool = nodePool(POOL, { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '0s' }) as {
    spec: { template: { spec: { requirements: object[] } } };
  };
  // Linux only: kpol's instance types carry no OS choice (src/world/cloud/offering-fit.ts says linux).
  pool.spec.template.spec.requirements.push({ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] });
  const groups = Array.from({ length: o.podsPerNode }, (_, i) => `g${i}`);
  await kubectlOk(kube, ['apply', '-f', '-'], toYaml([namespace(NS), pool]));
  await kubectlOk(
    kube,
    ['apply', '-f', '-'],
    toYaml(groups.map((g) => deployment({ namespace: NS, name: g, pool: POOL, replicas: o.nodes, spread: g }))),
  );
  const pods = o.nodes * o.podsPerNode;
  const provisionStart = Date.now();
  await until(`${o.nodes} Ready nodes and ${pods} Running pods`, 60 * 60_000, async () => {
    const [ready, running] = await Promise.all([readyNodes(api), runningPods(api)]);
    log(`  ${ready} nodes Ready, ${running}/${pods} pods Running`);
    return ready >= o.nodes && running >= pods;
  });
  const provisionS = (Date.now() - provisionStart) / 1000;
  stage(`provisioned in ${provisionS.toFixed(0)} s`);

  // Every node a candidate for single-node consolidation (Karpenter's own count).
  await until('Karpenter to see every node as an Underutilized candidate', 10 * 60_000, async () => {
    const eligible = gauge(await scrapeSlow(karpenter.metricsUrl), 'karpenter_voluntary_disruption_eligible_nodes', {
      reason: 'underutilized',
    });
    log(`  eligible (underutilized): ${eligible ?? '-'}`);
    return (eligible ?? 0) >= (await readyNodes(api));
  });

  // Karpenter marks a pass that found nothing "consolidated" and skips the next ones until the
  // cluster changes, but the skipped ones are observed too (candidates and budgets only). So each
  // round changes the cluster (one pod deleted; its Deployment replaces it on the same node) and
  // keeps only the first single-node observation that began after the replacement was Running.
  const full: Observation[] = [];
  const all: Observation[] = [];
  const watcher = new HistogramWatcher(karpenter.metricsUrl, karpenter.pids.karpenter, (x) => all.push(x));
  await watcher.poll();
  const timeoutsBefore = counter(watcher.last, 'karpenter_voluntary_disruption_consolidation_timeouts_total', {
    consolidation_type: 'single',
  });
  // A pass that stopped at the 3-minute limit marks nothing consolidated, so the next one visits
  // candidates again without a change (at 500 nodes on 2 busy cores every pass times out).
  for (let round = 0; round < o.passes; round++) {
    const changedAt = watcher.lastTimedOut ? undefined : await nudge(api, groups[round % groups.length], pods);
    const obs = await watcher.waitFor(changedAt, 15 * 60_000);
    full.push(obs);
    stage(
      `Karpenter single-node pass ${round + 1}/${o.passes}: ${(obs.seconds * 1000).toFixed(0)} ms, ` +
        `CPU ${(obs.cpuSeconds * 1000).toFixed(0)} ms${obs.timedOut ? ', timed out' : ''}`,
    );
  }
  const scraped = watcher.last;
  const eligible = gauge(scraped, 'karpenter_voluntary_disruption_eligible_nodes', { reason: 'underutilized' }) ?? 0;
  const timeouts =
    counter(scraped, 'karpenter_voluntary_disruption_consolidation_timeouts_total', { consolidation_type: 'single' }) -
    timeoutsBefore;
  const decisions = counter(scraped, 'karpenter_voluntary_disruption_decisions_total', {
    consolidation_type: 'single',
  });
  const hist = histogram(scraped, SINGLE);

  // kpol over the same objects, listed from the API server now (nothing changed since the last pass).
  const t0 = performance.now();
  const text = await listAsKubectl(api);
  const listMs = performance.now() - t0;
  // To profile kpol's side again without Karpenter: the objects as `kpol eval --cluster` reads them.
  if (process.env.KPOL_BENCH_KARPENTER_SAVE) writeFileSync(process.env.KPOL_BENCH_KARPENTER_SAVE, text);
  const { snapshot, errors } = loadSnapshot(text, 'cluster');
  if (!snapshot || errors.length) throw new Error(`kpol cannot load the cluster: ${errors[0]?.message}`);
  let t = performance.now();
  const index = indexCluster(snapshot);
  const indexMs = performance.now() - t;
  const instanceTypes = kwokInstanceTypes();
  const byName = new Map(instanceTypes.map((it) => [it.name, it]));
  const runs: { ms: number; cpuMs: number; evalMs: number; moves: number; commands: number }[] = [];
  for (let i = 0; i < o.kpolRuns; i++) {
    const clock = new FakeClock(Date.now());
    const cpu = process.cpuUsage();
    t = performance.now();
    // Karpenter's observation covers candidates, budgets and the pass; kpol's evaluation gives the first two.
    const evaluation = await new Evaluator().evaluate(index, [], clock.now());
    const evalMs = performance.now() - t;
    const prepared = new SimulationPass(index, {
      now: clock.now(),
      instanceTypes,
      marked: new Set(),
      policyFor: () => undefined,
    });
    const moves: (readonly Candidate[])[] = [];
    const commands = singleNode.compute({
      now: clock.now(),
      index,
      evaluation,
      instanceTypes: byName,
      events: new EventLog(clock),
      newId: () => 'bench',
      simulate: (c, consolidation) => {
        moves.push(c);
        return prepared.simulate(c, consolidation);
      },
    });
    const ms = performance.now() - t;
    const used = process.cpuUsage(cpu);
    runs.push({ ms, cpuMs: (used.user + used.system) / 1000, evalMs, moves: moves.length, commands: commands.length });
  }
  const med = [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)];
  // A pass that hit Karpenter's 3-minute limit visited only part of the candidates; at debug level
  // Karpenter logs how many, at the moment it gave up (matched to the observation by time).
  const abandoned = readFileSync(karpenter.logs.karpenter, 'utf8')
    .split('\n')
    .filter((l) => l.includes('abandoning single-node consolidation due to timeout'))
    .map((l) => ({
      at: Date.parse(/"time":"([^"]+)"/.exec(l)?.[1] ?? ''),
      evaluated: Number(/"candidates_evaluated":(\d+)/.exec(l)?.[1] ?? NaN),
    }));
  // The counter says whether a pass timed out; the log line nearest before the scrape that showed
  // it says how far it got.
  const passes = full.map((x) => {
    const gaveUp = x.timedOut
      ? abandoned.filter((a) => a.at <= x.seenAt + 1000).sort((a, b) => b.at - a.at)[0]
      : undefined;
    const reach = x.timedOut ? (gaveUp?.evaluated ?? NaN) : eligible;
    return { ...x, reach, msPerCandidate: (x.seconds * 1000) / Math.max(1, reach) };
  });
  const karpMs = median(passes.map((x) => x.seconds * 1000));
  const karpCpuMs = median(passes.map((x) => x.cpuSeconds * 1000));
  const karpPerCandidate = median(passes.map((x) => x.msPerCandidate));
  const karpCpuPerCandidate = median(passes.map((x) => (x.cpuSeconds * 1000) / Math.max(1, x.reach)));
  const unfinished = passes.filter((x) => x.timedOut).length;
  const kpolPerMove = med.ms / Math.max(1, med.moves);
  const kpolCpuPerMove = med.cpuMs / Math.max(1, med.moves);
  stage(
    `kpol: list ${listMs.toFixed(0)} ms, index ${indexMs.toFixed(0)} ms; runs ` +
      runs.map((r) => `${r.ms.toFixed(0)} ms (${r.moves} moves, ${r.commands} commands)`).join(', '),
  );
  const skipped = all.filter((x) => !full.includes(x));
  // When Karpenter gave up, its whole-pass figure is the time limit, so the pass ratio is a lower bound.
  const atLeast = unfinished ? '≥ ' : '';
  return [
    {
      name: `Karpenter ${KARPENTER_VERSION} single-node pass (${o.nodes} KWOK nodes, ${pods} pods)`,
      value: `${karpMs.toFixed(0)} ms`,
      goal: '-',
      ratio:
        `median of ${passes.length} passes after a cluster change (` +
        passes
          .map(
            (x) =>
              `${(x.seconds * 1000).toFixed(0)} ms` +
              (x.timedOut ? ` timed out after ${x.reach}/${eligible} candidates` : ` all ${x.reach} candidates`),
          )
          .join('; ') +
        `), from its own ${HISTOGRAM}{consolidation_type="single"}: in all count ${hist.count}, ` +
        `sum ${hist.sum.toFixed(2)} s; ${skipped.length} other observations ` +
        `(not counted: begun before a cluster change or skipped as consolidated) median ` +
        `${skipped.length ? median(skipped.map((x) => x.seconds * 1000)).toFixed(0) : '-'} ms; ` +
        `${karpPerCandidate.toFixed(1)} ms per candidate; eligible ${eligible}, ` +
        `single-node timeouts ${timeouts}, decisions ${decisions}; ` +
        `Karpenter's CPU per pass ${karpCpuMs.toFixed(0)} ms (median, /proc); ` +
        `buckets ${bucketText(hist.buckets)}`,
    },
    {
      name: `kpol single-node pass, same objects`,
      value: `${med.ms.toFixed(0)} ms`,
      goal: '≥ 5× faster',
      ratio:
        `${atLeast}${(karpMs / med.ms).toFixed(1)}× faster than Karpenter's pass (same run), by CPU ` +
        `${atLeast}${(karpCpuMs / med.cpuMs).toFixed(1)}×; per candidate ${kpolPerMove.toFixed(2)} ms: ` +
        `${(karpPerCandidate / kpolPerMove).toFixed(0)}× (CPU ${(karpCpuPerCandidate / kpolCpuPerMove).toFixed(0)}×)` +
        (unfinished ? `; Karpenter timed out in ${unfinished} of ${passes.length}, kpol visited all` : '') +
        `; ${med.moves} moves, ${med.commands} commands (Karpenter: eligible ${eligible}, ` +
        `${decisions} decisions); evaluation ${med.evalMs.toFixed(0)} ms of it; CPU ${med.cpuMs.toFixed(0)} ms; ` +
        `cold first run ${runs[0].ms.toFixed(0)} ms; ` +
        `not timed: list ${listMs.toFixed(0)} ms, index ${indexMs.toFixed(0)} ms; provisioning took ` +
        `${(provisionS / 60).toFixed(1)} min`,
    },
  ];
}

/**
 * Deletes one pod of `group` and waits until its replacement is Running (bound to the node the
 * deleted one left: anti-affinity allows no other); returns when it was seen Running.
 */
async function nudge(api: ApiClient, group: string, pods: number): Promise<number> {
  const list = (await api.get(`/api/v1/namespaces/${NS}/pods?labelSelector=app%3D${group}&limit=1`)).body as {
    items: { metadata: { name: string } }[];
  };
  const victim = list.items[0]?.metadata.name;
  if (!victim) throw new Error(`no pod of ${group} to delete`);
  // No body: the pods' own terminationGracePeriodSeconds is 0.
  const res = await api.delete(`/api/v1/namespaces/${NS}/pods/${victim}`);
  if (res.status >= 300) throw new Error(`deleting pod ${victim}: HTTP ${res.status}`);
  await until(`the replacement of pod ${victim} to run`, 5 * 60_000, async () => {
    const names = await runningPodNames(api);
    return names.size >= pods && !names.has(victim);
  });
  return Date.now();
}

/** Scrapes the single-node series and turns each change of its count into observations. */
class HistogramWatcher {
  last: Sample[] = [];
  private at = 0;
  private count = -1;
  private sum = 0;
  private timeouts = 0;
  /** Whether the latest observation stopped at the time limit. */
  lastTimedOut = false;
  private readonly seen: Observation[] = [];
  /** (time, Karpenter's CPU seconds) at each scrape. */
  private readonly cpu: [number, number][] = [];

  constructor(
    private readonly url: string,
    private readonly pid: number,
    private readonly onObservation: (o: Observation) => void,
  ) {}

  async poll(): Promise<void> {
    let samples: Sample[];
    try {
      samples = await scrapeSlow(this.url);
    } catch (err) {
      // A CPU-starved Karpenter can miss a scrape; the next one catches up (counts are cumulative).
      log(`  (scrape failed: ${(err as Error).message})`);
      return;
    }
    const now = Date.now();
    const cpuNow = processCpuSeconds(this.pid);
    this.cpu.push([now, cpuNow]);
    const h = histogram(samples, SINGLE);
    const timeouts = counter(samples, 'karpenter_voluntary_disruption_consolidation_timeouts_total', {
      consolidation_type: 'single',
    });
    if (this.count >= 0 && h.count > this.count) {
      const n = h.count - this.count;
      // The loop runs at most every few seconds; two in one 250 ms poll are averaged (and said so).
      if (n > 1) log(`  ${n} single-node observations between two scrapes; averaged`);
      for (let i = 0; i < n; i++) {
        const seconds = (h.sum - this.sum) / n;
        const began = this.at - seconds * 1000;
        const before = [...this.cpu].reverse().find(([at]) => at <= began) ?? this.cpu[0];
        // The counter rises inside the pass, before the histogram observes it: same scrape or an earlier one.
        const timedOut = n === 1 && timeouts > this.timeouts;
        const o = {
          seconds,
          cpuSeconds: (cpuNow - before[1]) / n,
          seenAt: now,
          previousAt: this.at,
          timedOut,
          afterTimeout: this.lastTimedOut,
        };
        this.lastTimedOut = timedOut;
        this.seen.push(o);
        this.onObservation(o);
      }
    }
    if (h.count > this.count || this.count < 0) this.timeouts = timeouts;
    this.count = h.count;
    this.sum = h.sum;
    this.at = now;
    this.last = samples;
  }

  /**
   * The first new observation of a pass that visited candidates: one that followed a timed-out
   * pass, or (`changedAt` given) one that certainly began after the cluster changed — it ended
   * at least its own duration after it began.
   */
  async waitFor(changedAt: number | undefined, timeoutMs: number): Promise<Observation> {
    const deadline = Date.now() + timeoutMs;
    const from = this.seen.length;
    for (;;) {
      const hit = this.seen
        .slice(from)
        .find((o) => o.afterTimeout || (changedAt !== undefined && o.previousAt - o.seconds * 1000 > changedAt));
      if (hit) return hit;
      if (Date.now() > deadline)
        throw new Error(`no single-node pass within ${timeoutMs / 1000} s of a cluster change`);
      await new Promise((r) => setTimeout(r, 250));
      await this.poll();
    }
  }
}

/** One scrape, patient: at 500 nodes on a busy machine Karpenter can take over 5 s to answer. */
async function scrapeSlow(url: string): Promise<Sample[]> {
  const res = await httpGetText(url, 60_000);
  if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return parsePrometheusText(res.body);
}

/** User + system CPU seconds of a process so far (Linux /proc; clock ticks of 1/100 s). */
function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of proc(5) (utime, stime), counted from the state field (3rd).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function matches(labels: Record<string, string>, want: Record<string, string>): boolean {
  return Object.entries(want).every(([k, v]) => labels[k] === v);
}

function histogram(samples: readonly Sample[], want: Record<string, string>) {
  const of = (suffix: string) => samples.filter((s) => s.name === HISTOGRAM + suffix && matches(s.labels, want));
  return {
    count: of('_count')[0]?.value ?? 0,
    sum: of('_sum')[0]?.value ?? 0,
    buckets: of('_bucket').map((s) => ({ le: s.labels.le, n: s.value })),
  };
}

/** Non-empty cumulative buckets, as `≤le:count`, first and last that changed. */
function bucketText(buckets: { le: string; n: number }[]): string {
  const shown = buckets.filter((b, i) => b.n > 0 && (i === 0 || buckets[i - 1].n !== b.n));
  return shown.map((b) => `≤${b.le}s:${b.n}`).join(' ') || 'none';
}

function gauge(samples: readonly Sample[], name: string, want: Record<string, string>): number | undefined {
  return samples.find((s) => s.name === name && matches(s.labels, want))?.value;
}

function counter(samples: readonly Sample[], name: string, want: Record<string, string>): number {
  return samples.filter((s) => s.name === name && matches(s.labels, want)).reduce((n, s) => n + s.value, 0);
}

async function readyNodes(api: ApiClient): Promise<number> {
  const res = await api.request('GET', '/api/v1/nodes', undefined, 60_000);
  if (res.status !== 200) throw new Error(`listing nodes: HTTP ${res.status}`);
  const body = res.body as {
    items: { status?: { conditions?: { type: string; status: string }[] } }[];
  };
  return body.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
}

async function runningPodNames(api: ApiClient): Promise<Set<string>> {
  const res = await api.request(
    'GET',
    `/api/v1/namespaces/${NS}/pods?fieldSelector=status.phase%3DRunning`,
    undefined,
    60_000,
  );
  if (res.status !== 200) throw new Error(`listing pods: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
  const body = res.body as { items: { metadata: { name: string; deletionTimestamp?: string } }[] };
  return new Set(body.items.filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name));
}

async function runningPods(api: ApiClient): Promise<number> {
  return (await runningPodNames(api)).size;
}

/** The kinds `kpol eval --cluster` reads, listed from the API server as `kubectl get -o json` prints them. */
async function listAsKubectl(api: ApiClient): Promise<string> {
  const kinds: [string, string, string][] = [
    ['/apis/karpenter.sh/v1/nodepools', 'karpenter.sh/v1', 'NodePool'],
    ['/apis/karpenter.sh/v1/nodeclaims', 'karpenter.sh/v1', 'NodeClaim'],
    ['/api/v1/nodes', 'v1', 'Node'],
    ['/api/v1/pods', 'v1', 'Pod'],
    ['/apis/policy/v1/poddisruptionbudgets', 'policy/v1', 'PodDisruptionBudget'],
  ];
  const items: object[] = [];
  for (const [path, apiVersion, kind] of kinds) {
    const res = await api.request('GET', path, undefined, 120_000);
    if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status}`);
    for (const it of (res.body as { items: object[] }).items) items.push({ apiVersion, kind, ...it });
  }
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
}

interface KwokEntry {
  name: string;
  architecture: 'amd64' | 'arm64';
  operatingSystems: string[];
  resources: Record<string, string>;
  offerings: { Price: number; Available: boolean; Requirements: { key: string; values: string[] }[] }[];
}

/**
 * Karpenter's KWOK instance types (its `kwok/cloudprovider/instance_types.json`, read from the Go
 * module cache the build filled), linux ones, as kpol InstanceTypes: allocatable = resources −
 * the provider's kube-reserved (100m cpu, 10Mi memory).
 */
export function kwokInstanceTypes(): InstanceType[] {
  const modCache = process.env.GOMODCACHE ?? join(process.env.GOPATH ?? join(homedir(), 'go'), 'pkg', 'mod');
  const file = join(modCache, `sigs.k8s.io/karpenter@${KARPENTER_VERSION}`, 'kwok/cloudprovider/instance_types.json');
  const entries = JSON.parse(readFileSync(file, 'utf8')) as KwokEntry[];
  return entries
    .filter((e) => e.operatingSystems.includes('linux'))
    .map((e) => {
      const { cpu, memory, pods } = parseResourceList(e.resources);
      const offerings: Offering[] = e.offerings.map((off) => ({
        zone: off.Requirements.find((r) => r.key === 'topology.kubernetes.io/zone')!.values[0],
        capacityType: off.Requirements.find((r) => r.key === 'karpenter.sh/capacity-type')!.values[0] as CapacityType,
        price: off.Price,
        available: off.Available,
      }));
      return {
        name: e.name,
        family: e.name.split('-')[0],
        architecture: e.architecture,
        labels: { 'kubernetes.io/os': 'linux' },
        capacity: { cpu: cpu - 0.1, memory: memory - 10 * 2 ** 20, pods },
        nodeCapacity: { cpu, memory, pods },
        offerings,
      };
    });
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch (err) {
      log(`  (${what}: ${(err as Error).message})`);
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5000));
  }
}

/** The middle value; the mean of the middle two for an even count (two passes: their mean). */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
