// SPDX-License-Identifier: Apache-2.0
// What the web worker computes, as plain functions (also run in Node by the tests and the
// benchmark): diagnostics from the same parse + check the CLI uses, and the preview — the
// evaluator's answer now plus a week's calendar — for the text being edited.
import { hasErrors, type Diagnostic } from '../../grammar/diagnostic.js';
import type { PolicySpec } from '../../rules/model.js';
import { loadSnapshot } from '../../src/core/cluster/snapshot.js';
import { indexCluster, type ClusterIndex } from '../../src/core/cluster/state.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import type { EvalOutput, NodeResult, PoolResult } from '../../src/core/eval/output.js';
import { checkAll } from '../../rules/checks/check.js';
import type { LoadedPolicies, PolicySource } from '../../src/core/policy/load.js';
import { ChunkedParser } from './chunked-parse.js';
import { IncrementalChecker } from './incremental-check.js';
import { calendarFromSamples } from '../../src/edge/simulate/calendar-rows.js';
import { poolAllowedWithScopes } from '../../src/core/eval/budget-scopes.js';
import type { CalendarRow, Sample } from '../../src/edge/simulate/timeline.js';
import type { ClusterData, EditedDoc } from './protocol.js';

export interface Preview {
  at: number;
  /** The edited policies' names, and the NodePools they govern. */
  policies: string[];
  nodePools: Record<string, PoolResult>;
  nodes: Record<string, NodeResult>;
  /**
   * Per NodePool: what its row of the "now" table shows — its own allowance with the cluster
   * budgets that cover it folded in — and why, in the evaluator's words (errors, pauses, rate
   * budgets, cluster and selector budgets); the reasons a row is lower than its budget says.
   */
  now: Record<string, { allowed: PoolResult['allowed']; notes: string[] }>;
  /** One row per governed NodePool and reason, 7 × 24 local hours from Monday. */
  calendar: CalendarRow[];
  /** Set when the edited text has errors: the preview is of the last text that checked. */
  stale?: string;
}

export interface Connected {
  data: ClusterData;
  index: ClusterIndex;
}

export function connect(data: ClusterData): Connected {
  const { snapshot, errors } = loadSnapshot(JSON.stringify(data.objects), 'cluster');
  if (!snapshot) throw new Error(errors.map((e) => `${e.location}: ${e.message}`).join('; '));
  return { data, index: indexCluster(snapshot) };
}

/** One piecewise parser per source name, so a keystroke re-parses one declaration, not the file. */
export class Parsers {
  private readonly byName = new Map<string, ChunkedParser>();

  parser(fileName: string): ChunkedParser {
    let p = this.byName.get(fileName);
    if (!p) this.byName.set(fileName, (p = new ChunkedParser()));
    return p;
  }
}

/** The sources the controller would load with the edited text: the edited one comes last. */
function sourcesOf(doc: EditedDoc, cluster: Connected | undefined): PolicySource[] {
  const files = cluster?.data.files ?? [];
  return [
    ...files,
    ...doc.others.filter((s) => s.fileName !== doc.fileName),
    { fileName: doc.fileName, text: doc.text },
  ];
}

/** What src/core/policy/load.ts's loadPolicies does, with the cached parse. */
function load(doc: EditedDoc, cluster: Connected | undefined, parsers: Parsers): LoadedPolicies {
  const sources = sourcesOf(doc, cluster);
  const parsed = sources.map((s) => ({ source: s, result: parsers.parser(s.fileName).parse(s.text) }));
  const checked = checkAll(
    parsed.map((p) => ({ fileName: p.source.fileName, file: p.result.value })),
    { nowMs: cluster?.data.now },
  );
  const out = parsed.map((p, i) => ({
    ...p.source,
    diagnostics: [...p.result.diagnostics, ...checked.files[i].diagnostics],
  }));
  return { ok: !out.some((f) => hasErrors(f.diagnostics)), policies: checked.value, files: out };
}

/**
 * The edited text's diagnostics, checked together with the policies it will run beside; the
 * same as loadPolicies reports for it. Keep one checker per document: it re-checks only the
 * policies whose text changed.
 */
export function diagnosticsFor(
  doc: EditedDoc,
  cluster: Connected | undefined,
  checker = new IncrementalChecker(),
): Diagnostic[] {
  return checker.check(sourcesOf(doc, cluster), { nowMs: cluster?.data.now }).at(-1)!;
}

const SLICE_MS = 15 * 60_000;
const WEEK_MS = 7 * 24 * 3600_000;

/** The zone a policy's calendar is drawn in: its first window zone other than UTC, else UTC. */
export function policyZone(p: PolicySpec): string {
  const zones = [
    ...p.budgets.map((b) => b.window?.timeZone),
    ...p.maintenanceWindows.flatMap((w) => w.windows.map((x) => x.timeZone)),
    ...p.podWindows.map((w) => w.window?.timeZone),
  ];
  return zones.find((z) => z !== undefined && z !== 'UTC') ?? 'UTC';
}

/**
 * Evaluates the edited policies against the cluster now, and at every 15 minutes of the next
 * week for the calendar (pool allowances only depend on the instant, so the cluster's current
 * nodes stand in for the future ones). Undefined when the text has errors.
 */
export async function previewFor(
  doc: EditedDoc,
  cluster: Connected,
  evaluator = new Evaluator(),
  parsers = new Parsers(),
): Promise<Preview | undefined> {
  const loaded = load(doc, cluster, parsers);
  if (!loaded.ok || hasErrors(loaded.files.at(-1)!.diagnostics)) return undefined;
  const edited = loaded.policies.filter((p) => p.file === doc.fileName);
  const names = new Set(edited.map((p) => p.name));
  const now = cluster.data.now;
  const out = await evaluator.evaluate(cluster.index, loaded.policies, now);
  const governed = Object.entries(out.nodePools)
    .filter(([, p]) => names.has(p.policy))
    .map(([n]) => n);
  const zones: Record<string, string> = {};
  for (const pool of governed) zones[pool] = policyZone(edited.find((p) => p.name === out.nodePools[pool].policy)!);
  const samples: Sample[] = [];
  const start = Math.floor(now / SLICE_MS) * SLICE_MS;
  for (let t = start; t < start + WEEK_MS; t += SLICE_MS) {
    const at = await evaluator.evaluate(cluster.index, loaded.policies, t);
    const allowed: Sample['allowed'] = {};
    // Cluster budgets (issue 15) fold into the pools they cover.
    for (const pool of governed) allowed[pool] = poolAllowedWithScopes(at, pool);
    samples.push({ at: t, nodes: 0, nodesByPool: {}, costPerHour: 0, pendingPods: 0, allowed });
  }
  return {
    at: now,
    policies: [...names],
    nodePools: out.nodePools,
    nodes: out.nodes,
    now: poolsNow(out),
    calendar: calendarFromSamples(samples, zones, SLICE_MS),
  };
}

/** Each pool's allowance with its cluster budgets folded in, and the evaluator's notes on it. */
function poolsNow(out: EvalOutput): Preview['now'] {
  const now: Preview['now'] = {};
  for (const [name, p] of Object.entries(out.nodePools)) {
    const notes = [
      ...p.errors,
      ...(p.paused ?? []).map((x) => x.message),
      ...(p.rates ?? []).map((r) => r.message),
      ...Object.values(out.scopes ?? {})
        .filter((s) => s.nodePools.includes(name))
        .map((s) => {
          const allows = Object.entries(s.allowed)
            .map(([r, v]) => `${r} ${v ?? '∞'}`)
            .join(', ');
          return `${s.statement} (${s.at}) allows ${allows} across ${s.nodePools.join(', ')}`;
        }),
    ];
    now[name] = { allowed: poolAllowedWithScopes(out, name), notes };
  }
  return now;
}
