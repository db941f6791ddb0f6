// SPDX-License-Identifier: Apache-2.0
// `npm run bench`: speed and memory goals, each printed with the ratio to a baseline measured
// in the same run (never asserted in tests). Run on an otherwise idle machine.
// `npm run bench -- --only cli` (or policy, eval, reconciler, rss, editor, garbage; repeat or comma-separate)
// runs only those groups of lines. `--only karpenter` (never by default: it builds a KWOK cluster with the real
// Karpenter, minutes) prints the side-by-side line of test/bench/karpenter-side-by-side.ts.
import { parseArgs } from 'node:util';
import { Engine } from 'json-rules-engine';
import { parse } from '../../grammar/parse.js';
import { tokenize } from '../../grammar/lexer.js';
import { checkAll } from '../../rules/checks/check.js';
import { compile } from '../../rules/compile.js';
import { loadSnapshot } from '../../src/core/cluster/snapshot.js';
import { indexCluster } from '../../src/core/cluster/state.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { keepUnchanged } from '../../src/core/policy/unchanged-policies.js';
import type { PolicySpec } from '../../rules/model.js';
import { TRIAL_OFFSETS_MS, trialEvaluate } from '../../src/core/policy/trial-eval.js';
import { podDoNotDisrupt } from '../../src/core/cluster/state.js';
import { toList } from '../support/cluster-builder.js';
import { generateCluster, generatePolicy } from './generate.js';
import { tickBench, weekBench } from './reconciler.js';
import { monthBench } from './simulation-month.js';
import { consolidationPassBench } from './consolidation.js';
import { peakRssBench } from './peak-rss.js';
import { cliStartBench } from './cli-start.js';
import { garbageCheckBench } from './garbage-check.js';

const now = () => performance.now();
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
async function timeRuns(n: number, f: () => unknown | Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = now();
    await f();
    times.push(now() - t);
  }
  return median(times);
}
/** Median CPU time of the process (user + system, ms) per run: steadier than wall time on a shared machine. */
async function cpuRuns(n: number, f: () => unknown | Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = process.cpuUsage();
    await f();
    const d = process.cpuUsage(c);
    times.push((d.user + d.system) / 1000);
  }
  return median(times);
}
const fmt = (x: number, d = 1) => x.toFixed(d);
const line = (name: string, value: string, goal: string, ratio: string) =>
  console.log(`${name.padEnd(44)} ${value.padStart(16)}   goal ${goal.padEnd(14)} ${ratio}`);

async function policyThroughput(): Promise<void> {
  const text = generatePolicy(10_000);
  const lines = text.split('\n').length;
  const full = () => {
    const ast = parse(text);
    const checked = checkAll([{ fileName: 'gen.kpol', file: ast.value }]);
    return checked.value.map(compile);
  };
  // Throughput of a running process (the controller, the editor's worker, the language server):
  // ten runs of each first, so neither figure is the JIT's warm-up nor the young generation still
  // growing to its size; then the median of 21 (one run's CPU time varies 2-3× with where the
  // collector's cycles fall).
  for (let i = 0; i < 10; i++) {
    tokenize(text);
    full();
  }
  const lexMs = await cpuRuns(9, () => tokenize(text));
  const fullMs = await cpuRuns(21, full);
  // The same pipeline through the Chevrotain path (parse.ts `fastPath: false`), which a file with
  // any mistake takes: the fast path's gain, measured in the same run. Warmed and measured after the
  // fast path, whose runs would otherwise pay for collecting the concrete syntax trees it leaves.
  const chevrotain = () => {
    const ast = parse(text, { fastPath: false });
    const checked = checkAll([{ fileName: 'gen.kpol', file: ast.value }]);
    return checked.value.map(compile);
  };
  for (let i = 0; i < 3; i++) chevrotain();
  const chevrotainMs = await cpuRuns(9, chevrotain);
  const kLinesPerS = (ms: number) => fmt(lines / (ms / 1000) / 1000);
  line(
    `parse+check+compile (${lines} lines)`,
    `${kLinesPerS(fullMs)}k lines/s`,
    '≥ 150k lines/s',
    `ratio to tokenize-only baseline: ${fmt(fullMs / lexMs)}× slower (${kLinesPerS(lexMs)}k lines/s); ` +
      'CPU time, warm',
  );
  line(
    `  the same through the Chevrotain path`,
    `${kLinesPerS(chevrotainMs)}k lines/s`,
    'report',
    `a file with a mistake parses this way; the fast path is ${fmt(chevrotainMs / fullMs)}× faster`,
  );
}

async function evalAtScale(): Promise<void> {
  const shape = { pools: 100, nodes: 5000, pods: 150_000 };
  const json = JSON.stringify(toList(generateCluster(shape)));
  let t = now();
  const { snapshot } = loadSnapshot(json, 'bench.json');
  const index = indexCluster(snapshot!);
  const loadMs = now() - t;
  const policyText = generatePolicy(400).replace(/pool-(\d+)/g, (_, n) => `pool-${Number(n) * 3}`);
  const { policies, ok } = loadPolicies([{ fileName: 'bench.kpol', text: policyText }]);
  if (!ok) throw new Error('benchmark policy does not check');
  const evaluator = new Evaluator();
  const at = Date.parse('2026-11-23T02:00:00Z');
  // Wall time: the first evaluation is a wait, and its CPU time counts V8's background compiler threads too.
  const coldCpu = process.cpuUsage();
  t = now();
  await evaluator.evaluate(index, policies, at);
  const coldMs = now() - t;
  const coldUsage = process.cpuUsage(coldCpu);
  const coldCpuMs = (coldUsage.user + coldUsage.system) / 1000;
  let i = 0;
  const reusedMs = await cpuRuns(7, () => evaluator.evaluate(index, policies, at + 60_000 * ++i));
  // Every node derived again at each instant (no verdict or evaluation reuse; the engine's memo stays):
  // through the prepared nodes and fact combinations (src/core/eval/prepared-nodes.ts, fact-combinations.ts),
  // and, as the same-run baseline, from all its pods with one rule lookup and verdict per node.
  evaluator.reuse = false;
  // A running controller's figure, as the tick line's: the first 15 runs still pay for V8 optimising
  // the path on its compiler threads (process.cpuUsage counts every thread), so their median is
  // printed beside the median of the 31 that follow.
  const compilingMs = await cpuRuns(15, () => evaluator.evaluate(index, policies, at + 60_000 * ++i));
  const warmMs = await cpuRuns(31, () => evaluator.evaluate(index, policies, at + 60_000 * ++i));
  evaluator.prepared = false;
  const everyPodMs = await cpuRuns(7, () => evaluator.evaluate(index, policies, at + 60_000 * ++i));
  evaluator.prepared = true;
  evaluator.reuse = true;
  const runs = evaluator.built.reduce((n, e) => n + e.runs, 0);
  console.log(
    `cluster: ${shape.nodes} nodes, ${shape.pods} pods, ${shape.pools} NodePools,` +
      ` ${policies.length} .kpol policies; load+index ${fmt(loadMs, 0)} ms`,
  );

  // Naive baseline: one json-rules-engine run per pod (do-not-disrupt + window rule), measured on a sample.
  const engine = new Engine(
    [
      {
        conditions: {
          any: [
            { fact: 'dnd', operator: 'equal', value: true },
            { fact: 'outsideWindow', operator: 'equal', value: true },
          ],
        },
        event: { type: 'block' },
      },
    ],
    { allowUndefinedFacts: true },
  );
  const sample = snapshot!.pods.slice(0, 5000);
  t = now();
  for (const pod of sample) await engine.run({ dnd: podDoNotDisrupt(pod, at).active, outsideWindow: false });
  const naiveMs = ((now() - t) / sample.length) * snapshot!.pods.length;
  line(
    'eval per instant, every node derived (5k / 150k)',
    `${fmt(warmMs)} ms cpu`,
    '≤ 30 ms',
    `objects unchanged, each node's prepared facts kept (runs 1–15, still compiling: ${fmt(compilingMs)} ms); ` +
      `${fmt(everyPodMs / warmMs)}× faster than each node from all its pods (${fmt(everyPodMs)} ms); ` +
      `${fmt(naiveMs / warmMs, 0)}× than per-pod engine runs (${fmt(naiveMs, 0)} ms, sampled on 5,000 pods)`,
  );
  line(
    'eval per instant, nothing changed (reused)',
    `${fmt(reusedMs, 2)} ms cpu`,
    '≤ 1 ms',
    `${fmt(warmMs / reusedMs, 0)}× faster than deriving every node`,
  );
  line(
    'eval first instant (cold: compile + memo fill)',
    `${fmt(coldMs)} ms`,
    '≤ 500 ms',
    `the first tick in a new process: nothing compiled, no node prepared (CPU ${fmt(coldCpuMs, 0)} ms, all threads); ` +
      `${runs} engine runs in total over ${i + 1} instants`,
  );
  // A policy edit in a running controller: the set is loaded again and the untouched policies keep
  // their objects (src/core/policy/unchanged-policies.ts), so only the edited policy's nodes are derived
  // again; the same-run baseline takes every policy as new, as a reload did before.
  let edits = 0;
  let inForce: readonly PolicySpec[] = policies;
  const editOnce = async (keep: boolean) => {
    const edited = policyText.replace('budget 1% for Empty', `budget ${(++edits % 40) + 2}% for Empty`);
    const next = loadPolicies([{ fileName: 'bench.kpol', text: edited }]).policies; // not timed: the policy line
    return cpuRuns(1, () => {
      inForce = keep ? keepUnchanged(inForce, next) : next;
      return evaluator.evaluate(index, inForce, at + 60_000 * ++i);
    });
  };
  const editedMs: number[] = [];
  const allNewMs: number[] = [];
  for (let round = 0; round < 7; round++) {
    editedMs.push(await editOnce(true));
    allNewMs.push(await editOnce(false));
  }
  line(
    `eval after one of ${policies.length} policies edited`,
    `${fmt(median(editedMs))} ms cpu`,
    '≤ 30 ms',
    `the others kept; ${fmt(median(allNewMs) / median(editedMs))}× faster than every policy new ` +
      `(${fmt(median(allNewMs), 0)} ms, interleaved)`,
  );
  // What a policy change costs before it applies (src/core/policy/trial-eval.ts): a fresh evaluator per instant.
  const trialMs = await timeRuns(3, () => {
    const trial = new Evaluator(); // one per trial, as the Runtime's: compiled once, every instant derives its nodes
    return trialEvaluate(
      policies,
      async (p, ms) => {
        await trial.evaluate(index, p, ms);
      },
      at,
    );
  });
  line(
    `trial of a changed policy set (${TRIAL_OFFSETS_MS.length} instants)`,
    `${fmt(trialMs, 0)} ms`,
    '≤ 5 s',
    `${fmt(trialMs / coldMs)}× one cold evaluation (once per ConfigMap change, never per tick)`,
  );
}

// Groups of lines, each runnable alone: `npm run bench -- --only tick` (repeat or comma-separate).
// `reconciler` is tick, consolidation and week together. month and karpenter take from minutes
// (karpenter: a real control plane, Karpenter and KWOK) to hours (month at 5k nodes), so they run
// only when named.
const GROUPS = ['cli', 'garbage', 'policy', 'eval', 'tick', 'consolidation', 'week', 'rss', 'editor'] as const;
const ON_REQUEST = ['month', 'karpenter'] as const;
type Group = (typeof GROUPS)[number] | (typeof ON_REQUEST)[number];
const ALIASES: Record<string, Group[]> = { reconciler: ['tick', 'consolidation', 'week'] };
const { values: flags } = parseArgs({ options: { only: { type: 'string', multiple: true } } });
const asked = (flags.only ?? [...GROUPS])
  .flatMap((o) => o.split(','))
  .map((o) => o.trim())
  .filter(Boolean);
const known = [...GROUPS, ...ON_REQUEST, ...Object.keys(ALIASES)] as string[];
const unknown = asked.filter((g) => !known.includes(g));
if (unknown.length) {
  console.error(`npm run bench: --only takes ${known.join(', ')}; not ${unknown.join(', ')}`);
  process.exit(2);
}
const only = new Set(asked.flatMap((g) => ALIASES[g] ?? [g as Group]));
const run = (group: Group) => only.has(group);

// Under ts-loader.mjs (npm run bench) the sources are compiled as the shipped build compiles them;
// run through tsx, every closure pays for keepNames, and the line says so.
const compiled =
  process.env.KPOL_BENCH_COMPILED === 'build' ? 'compiled as the build (esbuild)' : 'compiled by tsx (keepNames)';
console.log(`kpol bench — node ${process.version}, ${new Date().toISOString()}, sources ${compiled}\n`);
// Whole processes first, while this one has built nothing: KPOL_BENCH_CLI_ROUNDS (default 11) rounds.
if (run('cli'))
  for (const l of await cliStartBench(Number(process.env.KPOL_BENCH_CLI_ROUNDS ?? 11)))
    line(l.name, l.value, l.goal, l.ratio);
// `kpol check` on 0.25–1 MB of single-line garbage, whole processes: KPOL_BENCH_GARBAGE_ROUNDS (default 3) rounds.
if (run('garbage')) {
  for (const l of await garbageCheckBench(Number(process.env.KPOL_BENCH_GARBAGE_ROUNDS ?? 3)))
    line(l.name, l.value, l.goal, l.ratio);
}
if (run('policy')) await policyThroughput();
if (run('eval')) await evalAtScale();
// Reconciler scales are set by env so a slow machine can still finish: KPOL_BENCH_QUIET_TICK_NODES and
// KPOL_BENCH_CONSOLIDATION_NODES (default 5000), KPOL_BENCH_SIM_NODES/DAYS (default 1000 / 7, the week).
// The quiet tick runs at the scale by default (KPOL_BENCH_QUIET_TICK_NODES, default 5000, 50 nodes per pool).
const quietNodes = Number(process.env.KPOL_BENCH_QUIET_TICK_NODES ?? 5000);
if (run('tick'))
  for (const l of await tickBench(quietNodes, Math.max(1, Math.round(quietNodes / 50))))
    line(l.name, l.value, l.goal, l.ratio);
// The consolidation pass runs at the scale by default (KPOL_BENCH_CONSOLIDATION_NODES, 5000 → 100 pools).
const passNodes = Number(process.env.KPOL_BENCH_CONSOLIDATION_NODES ?? 5000);
if (run('consolidation'))
  for (const l of await consolidationPassBench(passNodes, Math.max(1, Math.round(passNodes / 50))))
    line(l.name, l.value, l.goal, l.ratio);
if (run('week'))
  for (const l of await weekBench(
    Number(process.env.KPOL_BENCH_SIM_NODES ?? 1000),
    Number(process.env.KPOL_BENCH_SIM_DAYS ?? 7),
  ))
    line(l.name, l.value, l.goal, l.ratio);
// The issue-16 month: KPOL_BENCH_MONTH_NODES/DAYS (default 5000 / 30),
// baseline over the first KPOL_BENCH_MONTH_BASELINE_HOURS (default 6).
if (run('month'))
  for (const l of await monthBench(
    Number(process.env.KPOL_BENCH_MONTH_NODES ?? 5000),
    Number(process.env.KPOL_BENCH_MONTH_DAYS ?? 30),
    Number(process.env.KPOL_BENCH_MONTH_BASELINE_HOURS ?? 6),
  ))
    line(l.name, l.value, l.goal, l.ratio);
// KPOL_BENCH_RSS_ROUNDS (default 3) runs of each in-memory scenario; the largest counts.
if (run('rss'))
  for (const l of await peakRssBench(quietNodes, Number(process.env.KPOL_BENCH_RSS_ROUNDS ?? 3)))
    line(l.name, l.value, l.goal, l.ratio);
if (run('editor'))
  for (const l of await (await import('./editor.js')).editorBench()) line(l.name, l.value, l.goal, l.ratio);
// KPOL_BENCH_KARPENTER_NODES (default 100), _PODS_PER_NODE (3), _PASSES (3): see karpenter-side-by-side.ts.
if (run('karpenter'))
  for (const l of await (
    await import('./karpenter-side-by-side.js')
  ).karpenterSideBySideBench({
    nodes: Number(process.env.KPOL_BENCH_KARPENTER_NODES ?? 100),
    podsPerNode: Number(process.env.KPOL_BENCH_KARPENTER_PODS_PER_NODE ?? 3),
    passes: Number(process.env.KPOL_BENCH_KARPENTER_PASSES ?? 3),
    kpolRuns: 7,
  }))
    line(l.name, l.value, l.goal, l.ratio);
// What a default run leaves out still shows, with its goal and how to run it.
if (GROUPS.every(run)) {
  if (!run('month'))
    line(
      'simulated month (5,000 nodes, 30 days)',
      'not run',
      '≤ 60 s',
      'many minutes at this scale, so only on request: `npm run bench -- --only month` ' +
        '(KPOL_BENCH_MONTH_NODES/DAYS for less)',
    );
  if (!run('karpenter'))
    line(
      'single-node pass beside the real Karpenter',
      'not run',
      '≥ 5× faster',
      '~20 min at 500 nodes: `KPOL_BENCH_KARPENTER_NODES=500 npm run bench -- --only karpenter`',
    );
}
if (GROUPS.every(run))
  line(
    'peak RSS of this bench process',
    `${fmt(process.resourceUsage().maxRSS / 1024, 0)} MiB`,
    '-',
    'three 5k clusters and a simulated week built one after another in one process',
  );
