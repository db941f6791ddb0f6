// SPDX-License-Identifier: Apache-2.0
// Peak RSS of the controller at the scale, each scenario in a process of its own (the
// bench process itself has built several clusters by the end, which says nothing about one
// controller): `node --import tsx peak-rss.ts quiet|consolidation NODES` prints maxRSS in MiB
// (the consolidation pass without consolidation.ts's baseline of full rebuilds).
// The informer scenarios (`informer|informer-whole NODES PORT`) read the cluster the way `kpol run`
// does on a real one — kpol's informers list every kind from list-server.ts (another process,
// objects dressed as the API server returns them), then the controller's view joins them and the
// evaluator runs ten quiet ticks over them; `informer-whole` caches whole objects (the baseline).
// Each scenario process runs this file bundled by esbuild, as kpol ships (src/edge/cli/build.mjs),
// not through tsx: tsx's loader compiles on a thread of its own, with a V8 heap of its own, which
// added ~90 MiB to every figure and is no part of the controller (KPOL_BENCH_TSX=1 measures that way);
// and with the node options the shipped Deployment sets (deployedNodeOptions).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { ClusterView, VIEW_KINDS } from '../../src/control/reconciler/cluster-view.js';
import { KubeClusterClient } from '../../src/edge/kube/kube-cluster.js';
import { SimulationPass } from '../../src/control/reconciler/simulation-pass.js';
import { settledPass } from './consolidation.js';
import { quietRuntime, type Line } from './reconciler.js';

const SELF = fileURLToPath(import.meta.url);
const LIST_SERVER = fileURLToPath(new URL('./list-server.ts', import.meta.url));

async function informerTicks(port: string, lean: boolean): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'bench', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'bench' }],
    contexts: [{ name: 'bench', cluster: 'bench', user: 'bench' }],
    currentContext: 'bench',
  });
  const client = new KubeClusterClient(kc, { cachedReads: true, informer: { lean } });
  await client.start(VIEW_KINDS);
  const view = new ClusterView(client, { changeStamp: () => VIEW_KINDS.map((k) => client.kindVersion(k)).join('/') });
  const evaluator = new Evaluator();
  let at = Date.parse('2026-11-23T12:00:00Z');
  for (let i = 0; i < 10; i++) {
    const index = await view.current();
    if (index.snapshot.pods.length === 0) throw new Error('the informers listed no pods');
    await evaluator.evaluate(index, [], (at += 10_000));
  }
  client.close();
  view.close();
}

/**
 * The pass of consolidation.ts over every candidate of the settled cluster, without that line's
 * baseline (full scheduling rebuilds the controller never makes).
 */
async function consolidationPass(nodes: number, pools: number): Promise<void> {
  const { index, env, pass } = await settledPass(nodes, pools);
  const prepared = new SimulationPass(index, env);
  pass((c, consolidation) => prepared.simulate(c, consolidation));
}

async function scenario(which: string, nodes: number): Promise<void> {
  const pools = Math.max(1, Math.round(nodes / 50));
  if (which === 'quiet') {
    const { rt, clock } = await quietRuntime(nodes, pools);
    for (let i = 0; i < 10; i++) {
      await rt.tick();
      clock.advance(10_000);
    }
  } else if (which === 'informer' || which === 'informer-whole') {
    await informerTicks(process.argv[4], which === 'informer');
  } else {
    await consolidationPass(nodes, pools);
  }
  process.stdout.write(String(process.resourceUsage().maxRSS / 1024));
  process.exit(0); // the informers' sockets may still be closing
}

/** This file and all it imports as one ES module in a new temporary folder (removed by `done`). */
async function bundled(): Promise<{ file: string; done(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'kpol-peak-rss-'));
  const file = join(dir, 'peak-rss.mjs');
  const { build } = await import('esbuild');
  await build({
    entryPoints: [SELF],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile: file,
    // Bundled CommonJS packages still call require(), as in the CLI's build.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    external: ['esbuild'],
    logLevel: 'warning',
  });
  return { file, done: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The node options the shipped Deployment gives the controller (deploy/40-deployment.yaml: V8's
 * heap limit, which also sets how far V8 lets garbage grow before collecting), for every scenario.
 */
function deployedNodeOptions(): string[] {
  const file = fileURLToPath(new URL('../../deploy/40-deployment.yaml', import.meta.url));
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const o = doc.toJS() as { kind?: string; spec?: { template?: { spec?: { containers?: unknown[] } } } };
    if (o?.kind !== 'Deployment') continue;
    const [c] = (o.spec?.template?.spec?.containers ?? []) as { env?: { name: string; value?: string }[] }[];
    const v = c?.env?.find((e) => e.name === 'NODE_OPTIONS')?.value;
    return v ? v.split(/\s+/) : [];
  }
  return [];
}

let runner: Promise<{ file: string; done(): void }> | undefined;
const TSX = process.env.KPOL_BENCH_TSX === '1';

async function child(which: string, nodes: number, port = ''): Promise<number> {
  const args = TSX ? ['--import', 'tsx', SELF] : [(await (runner ??= bundled())).file];
  // The baseline of whole objects runs out of that heap (~1.6 GiB): it runs without the limit.
  const options = which === 'informer-whole' ? [] : deployedNodeOptions();
  const out = execFileSync(process.execPath, [...options, ...args, which, String(nodes), port], {
    encoding: 'utf8',
  });
  return Number(out.trim().split('\n').at(-1));
}

/** Peak RSS of both informer scenarios, with list-server.ts running in a process of its own. */
async function informerRss(nodes: number): Promise<{ lean: number; whole: number }> {
  const server = spawn(process.execPath, ['--import', 'tsx', LIST_SERVER, String(nodes)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const lines = createInterface({ input: server.stdout! })[Symbol.asyncIterator]();
    const port = String((await lines.next()).value);
    return { lean: await child('informer', nodes, port), whole: await child('informer-whole', nodes, port) };
  } finally {
    server.kill();
  }
}

/**
 * Runs each scenario in a child process and reports its peak RSS. The in-memory scenarios run
 * `rounds` times each and count by their largest: where the collector's cycles fall moves one
 * run's peak by ±25 MiB, and a goal met by one lucky run is not met.
 */
export async function peakRssBench(nodes: number, rounds: number): Promise<Line[]> {
  const runs = async (which: string) => {
    const out: number[] = [];
    for (let i = 0; i < rounds; i++) out.push(await child(which, nodes));
    return out;
  };
  const quiet = await runs('quiet');
  const pass = await runs('consolidation');
  const informer = await informerRss(nodes);
  (await runner)?.done();
  runner = undefined;
  const peak = Math.max(...quiet, ...pass, informer.lean);
  const each = (xs: number[]) => `${Math.max(...xs).toFixed(0)} MiB (runs ${xs.map((x) => x.toFixed(0)).join(', ')})`;
  return [
    {
      name: `peak RSS, controller alone (${nodes} nodes, ${nodes * 30} pods)`,
      value: `${peak.toFixed(0)} MiB`,
      goal: '≤ 512 MiB',
      ratio:
        `in-memory: steady ticks ${each(quiet)}, consolidation pass ${each(pass)}; ` +
        `informer-cached ${informer.lean.toFixed(0)} MiB vs ${informer.whole.toFixed(0)} MiB caching whole ` +
        `objects (${(informer.whole / informer.lean).toFixed(1)}×, without the heap limit it would exceed; ` +
        `each in its own process, ${TSX ? 'through tsx' : 'bundled'}, with the Deployment's NODE_OPTIONS)`,
    },
  ];
}

if (process.argv[1] === SELF) await scenario(process.argv[2], Number(process.argv[3]));
