// SPDX-License-Identifier: Apache-2.0
// One fuzz input through what `kpol check`, `kpol compile` and `kpol eval` run: parse and check
// (loadPolicies), compile every policy, evaluate at instants, plan decisions, and print both
// output forms. It returns the problems found instead of throwing, so that a fuzz run can count
// them: a throw anywhere, an "internal error", a diagnostic that is not located inside the text,
// and (for accepted policies) a pool that failed to evaluate or a node without a decision.
import fc from 'fast-check';
import { compile } from '../../rules/compile.js';
import { indexCluster, type ClusterIndex } from '../../src/core/cluster/state.js';
import { loadSnapshot } from '../../src/core/cluster/snapshot.js';
import type { KubeObject } from '../../src/core/cluster/types.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { renderText } from '../../src/core/eval/output.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { planDecisions } from '../../src/control/reconciler/plan.js';
import { LineIndex } from '../../grammar/positions.js';
import { makeNodeClaimAndNode, makeNodePool, makePod, toList } from '../support/cluster-builder.js';
import type { Diagnostic } from '../../grammar/diagnostic.js';
import { UNBOUNDED, type PolicySpec, type WindowSpec } from '../../rules/model.js';

/** Go's time.Duration in whole seconds: the longest duration Karpenter holds. */
const GO_DURATION_MAX_SECONDS = 9_223_372_036;

export interface Outcome {
  accepted: boolean;
  evaluated: number; // instants evaluated
  problems: string[];
}

const ODD_KEYS = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'];

/**
 * A small cluster over NodePools `default` and `gpu`: nodes in odd states, labels named like
 * Object members. Generated as a short description (what a failing run prints) and built with
 * `buildCluster`.
 */
export const clusterArb: fc.Arbitrary<ClusterSpec> = fc
  .tuple(
    fc.array(
      fc.record({
        pool: fc.constantFrom('default', 'gpu'),
        drifted: fc.boolean(),
        ready: fc.constantFrom('True', 'False', 'missing'),
        deleting: fc.boolean(),
        pods: fc.integer({ min: 0, max: 2 }),
        oddLabel: fc.option(fc.constantFrom(...ODD_KEYS)),
        createdAt: fc.constantFrom('1970-01-01T00:00:00Z', '2026-08-01T00:00:00Z', '9999-12-31T23:59:59Z'),
      }),
      { maxLength: 5 },
    ),
    fc.option(fc.constantFrom(...ODD_KEYS)),
  )
  .map(([nodes, poolLabel]) => ({ nodes, poolLabel }));

type NodeSpec = {
  pool: string;
  drifted: boolean;
  ready: string;
  deleting: boolean;
  pods: number;
  oddLabel: string | null;
  createdAt: string;
};
export interface ClusterSpec {
  nodes: NodeSpec[];
  poolLabel: string | null;
}

export function buildCluster({ nodes, poolLabel }: ClusterSpec): ClusterIndex {
  const objects: KubeObject[] = [makeNodePool('default'), makeNodePool('gpu')];
  // JSON.parse makes `__proto__` an own key, as a YAML or JSON snapshot would.
  const ownLabel = (key: string) => JSON.parse(`{${JSON.stringify(key)}: "x"}`) as Record<string, string>;
  if (poolLabel) objects[1]!.metadata.labels = ownLabel(poolLabel);
  nodes.forEach((n, i) => {
    const { nodeClaim, node } = makeNodeClaimAndNode(n.pool, i, {
      drifted: n.drifted,
      ready: n.ready as 'True',
      deleting: n.deleting,
      createdAt: n.createdAt,
    });
    if (n.oddLabel) Object.assign(node.metadata.labels!, ownLabel(n.oddLabel));
    objects.push(nodeClaim, node);
    for (let p = 0; p < n.pods; p++) {
      const labels = { app: p ? 'x' : 'ml-training' };
      objects.push(makePod(`p-${i}-${p}`, node.metadata.name, { labels, namespace: p ? 'shop' : 'ml' }));
    }
  });
  const { snapshot, errors } = loadSnapshot(JSON.stringify(toList(objects)), 'fuzz.json');
  if (!snapshot || errors.length) {
    throw new Error(`fuzz cluster does not load: ${errors.map((e) => e.message).join('; ')}`);
  }
  return indexCluster(snapshot);
}

/** Whether a diagnostic names a code and a range inside `text` whose line and column agree with its offsets. */
export function locationProblem(d: Diagnostic, text: string, lines: LineIndex): string | undefined {
  if (!/^KPOL\d{4}$/.test(d.code)) return `diagnostic without a code: ${JSON.stringify(d).slice(0, 200)}`;
  if (/internal error/i.test(d.message)) return `internal error: ${d.message}`;
  const { start, end } = d.range ?? {};
  if (!start || !end) return `${d.code} without a range`;
  if (!(start.offset >= 0 && start.offset <= end.offset && end.offset <= text.length)) {
    return `${d.code} range ${start.offset}..${end.offset} outside the text (${text.length})`;
  }
  for (const p of [start, end]) {
    const want = lines.positionAt(p.offset);
    if (want.line !== p.line || want.character !== p.character) {
      const says = `${p.line}:${p.character}`;
      return `${d.code} at offset ${p.offset} says ${says}, the text says ${want.line}:${want.character}`;
    }
  }
  return undefined;
}

/** Runs `text` through the pipeline; evaluation only happens when check accepts it. */
export async function runPolicy(
  text: string,
  index: ClusterIndex,
  instants: readonly number[],
  checkNowMs?: number,
): Promise<Outcome> {
  const problems: string[] = [];
  let loaded;
  try {
    loaded = loadPolicies([{ fileName: 'fuzz.kpol', text }], checkNowMs);
  } catch (e) {
    return { accepted: false, evaluated: 0, problems: [`check threw: ${describe(e)}`] };
  }
  const lines = new LineIndex(text);
  for (const d of loaded.files[0]!.diagnostics) {
    const p = locationProblem(d, text, lines);
    if (p) problems.push(p);
  }
  if (!loaded.ok) return { accepted: false, evaluated: 0, problems };
  for (const spec of loaded.policies) problems.push(...karpenterLimitProblems(spec));
  try {
    for (const spec of loaded.policies) JSON.stringify(compile(spec));
  } catch (e) {
    problems.push(`compile threw: ${describe(e)}`);
    return { accepted: true, evaluated: 0, problems };
  }
  let evaluated = 0;
  for (const at of instants) {
    const where = new Date(at).toISOString();
    try {
      const out = await new Evaluator().evaluate(index, loaded.policies, at);
      out.decisions = planDecisions(index, out, loaded.policies, at);
      JSON.stringify(out);
      renderText(out);
      for (const [pool, r] of Object.entries(out.nodePools)) {
        if (r.errors.length) problems.push(`at ${where} pool ${pool} failed: ${r.errors.join('; ')}`);
      }
      for (const node of index.snapshot.nodes) {
        const name = node.metadata.name;
        if (typeof out.nodes[name]?.candidate !== 'boolean') problems.push(`at ${where} node ${name} has no decision`);
      }
      evaluated++;
    } catch (e) {
      problems.push(`eval at ${where} threw: ${describe(e)}`);
    }
  }
  return { accepted: true, evaluated, problems };
}

/**
 * What check accepts, Karpenter can hold too (govern mode and `kpol export` write it into a
 * NodePool): node counts fit its int32, durations its time.Duration.
 */
export function karpenterLimitProblems(spec: PolicySpec): string[] {
  const out: string[] = [];
  const duration = (what: string, seconds: number | null | undefined) => {
    if (typeof seconds === 'number' && !(seconds <= GO_DURATION_MAX_SECONDS)) {
      out.push(`${spec.name}: ${what} ${seconds}s is past Go's time.Duration`);
    }
  };
  const window = (what: string, w: WindowSpec | undefined) => duration(`${what} window`, w?.durationSeconds);
  duration('consolidateAfter', spec.consolidateAfterSeconds);
  duration('expireAfter', spec.expireAfterSeconds);
  duration('terminationGracePeriod', spec.terminationGracePeriodSeconds);
  for (const b of spec.budgets) {
    if (b.nodes.kind === 'count' && !(b.nodes.value <= UNBOUNDED)) {
      out.push(`${spec.name}: budget ${b.id} of ${b.nodes.value} nodes is past int32`);
    }
    window(`budget ${b.id}`, b.window);
  }
  for (const p of spec.podWindows) window(`pod ${p.id}`, p.window);
  for (const m of spec.maintenanceWindows) for (const w of m.windows) window(`maintenance ${m.id}`, w);
  return out;
}

function describe(e: unknown): string {
  return e instanceof Error ? `${e.message} ${e.stack?.split('\n')[1]?.trim() ?? ''}` : String(e);
}
