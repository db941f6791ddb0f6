// SPDX-License-Identifier: Apache-2.0
// The `kpol eval` result: one JSON object (the contract in issue 2) and its text rendering.
import type { Block, Hold } from '../../../rules/node-verdict.js';
import type { Reason } from '../../../rules/model.js';
import type { RateUse } from './rate-use.js';

export interface PoolResult {
  policy: string; // the .kpol policy governing it, or `nodepool/<name>` for its own spec.disruption
  nodes: number;
  disrupting: number;
  /**
   * Only for a policy with `per reason` buckets: the disrupting nodes by the reason they are
   * disrupted for (`unknown` counts against every bucket).
   */
  disruptingByReason?: Partial<Record<Reason | 'unknown', number>>;
  /** Only with buckets: the reasons whose allowance a `per reason` bucket bound (else a shared budget did). */
  boundByBucket?: Reason[];
  budgets: Partial<Record<Reason, number | null>>;
  allowed: Partial<Record<Reason, number | null>>;
  errors: string[];
  /** The active rate budgets, used and left (only when there are any; rate-use.ts). */
  rates?: RateUse[];
  /** The pauses (`kpol pause`) holding some of its reasons at 0 now; absent when none. */
  paused?: PauseView[];
}

/** A pause in force on a NodePool, as `kpol eval` shows it (src/core/facts/pauses.ts). */
export interface PauseView {
  source: string; // ConfigMap/<namespace>/<name>
  reasons: Reason[] | null; // null: every reason
  until: string | null; // RFC 3339; null when the pause cannot be read (it then holds until fixed)
  by?: string;
  note?: string;
  message: string;
}

export interface NodeResult {
  nodePool: string;
  candidate: boolean;
  reasons: Reason[];
  blocked: Block[];
  /**
   * Pod and maintenance windows in force on the node whatever it is a candidate for (absent when
   * none). In govern mode each becomes Karpenter's node do-not-disrupt annotation, which blocks
   * every reason: `overblocks` names the reasons that annotation blocks beyond the policy.
   */
  holds?: Hold[];
  overblocks?: Reason[];
  /** The cluster and selector budgets whose scope holds the node (issue 15); absent when none. */
  budgetScopes?: string[];
  /** Candidate reasons a full cluster or selector budget holds back, and which (absent when none). */
  scopeHolds?: Array<{ reason: Reason; scope: string; message: string }>;
}

/** A cluster or selector budget at the instant (issue 15): its scope's counts and allowance per reason. */
export interface ScopeResult {
  kind: 'cluster' | 'nodes';
  /** The statement in canonical words and its file:line. */
  statement: string;
  at: string;
  nodePools: string[];
  nodes: number;
  disrupting: number;
  budgets: Partial<Record<Reason, number | null>>;
  allowed: Partial<Record<Reason, number | null>>;
}

export interface Decision {
  method: 'Emptiness' | 'Drift' | 'Expiration' | 'MultiNodeConsolidation' | 'SingleNodeConsolidation';
  reason: Reason | 'Expired';
  action: 'delete' | 'replace';
  nodes: string[];
  nodePools: string[];
  forceful?: boolean;
  /** Instance types of the replacement NodeClaims (cheapest first). */
  replacements?: string[];
  note?: string;
}

export interface EvalOutput {
  at: string;
  nodePools: Record<string, PoolResult>;
  nodes: Record<string, NodeResult>;
  /** Cluster and selector budgets by id; absent when no governing policy has one. */
  scopes?: Record<string, ScopeResult>;
  decisions: Decision[];
  warnings: string[];
}

const show = (v: number | null | undefined) => (v === null ? '∞' : v === undefined ? '-' : String(v));

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const byReasonText = (by: Partial<Record<string, number>>): string =>
  Object.entries(by)
    .map(([r, n]) => `${r} ${n}`)
    .join(', ') || 'none';

export function renderText(o: EvalOutput): string {
  const reasons: Reason[] = ['Empty', 'Drifted', 'Underutilized', 'Expired'];
  const poolRows = [
    ['NODEPOOL', 'POLICY', 'NODES', 'DISRUPTING', ...reasons.map((r) => `${r.toUpperCase()} ALLOWED/BUDGET`), 'ERRORS'],
  ];
  for (const [name, p] of Object.entries(o.nodePools)) {
    poolRows.push([
      name,
      p.policy,
      String(p.nodes),
      p.disruptingByReason ? `${p.disrupting} (${byReasonText(p.disruptingByReason)})` : String(p.disrupting),
      ...reasons.map((r) => (r in p.budgets ? `${show(p.allowed[r])}/${show(p.budgets[r])}` : '-')),
      p.errors.join('; ') || '-',
    ]);
  }
  const rated = Object.entries(o.nodePools).filter(([, p]) => p.rates?.length);
  const rates = rated.length
    ? `\n\nrate budgets:\n${rated.flatMap(([name, p]) => p.rates!.map((r) => `  ${name}: ${r.message}`)).join('\n')}`
    : '';
  const nodeRows = [['NODE', 'NODEPOOL', 'CANDIDATE FOR', 'BLOCKED']];
  for (const [name, n] of Object.entries(o.nodes)) {
    nodeRows.push([
      name,
      n.nodePool || '-',
      n.reasons.join(',') || '-',
      n.blocked.map((b) => `${b.code}: ${b.message}`).join(' | ') || '-',
    ]);
  }
  const scopeEntries = Object.entries(o.scopes ?? {});
  const scopeRows = [['BUDGET', 'AT', 'NODEPOOLS', 'NODES', 'DISRUPTING', ...reasons.map((r) => `${r.toUpperCase()}`)]];
  for (const [, s] of scopeEntries)
    scopeRows.push([
      s.statement,
      s.at,
      s.nodePools.join(',') || '-',
      String(s.nodes),
      String(s.disrupting),
      ...reasons.map((r) => (r in s.budgets ? `${show(s.allowed[r])}/${show(s.budgets[r])}` : '-')),
    ]);
  const scopes = scopeEntries.length ? `\n${table(scopeRows)}\n` : '';
  const scopeHeld = Object.entries(o.nodes).filter(([, n]) => n.scopeHolds?.length);
  const waiting = scopeHeld.length
    ? `\nwaiting for a cluster or selector budget:\n${scopeHeld
        .map(([name, n]) => `  ${name}: ${n.scopeHolds!.map((h) => h.message).join(' | ')}`)
        .join('\n')}\n`
    : '';
  const decisions = o.decisions.length
    ? o.decisions
        .map((d) => `  ${d.method}: ${d.action} ${d.nodes.join(', ')} (${d.reason})${d.note ? ` — ${d.note}` : ''}`)
        .join('\n')
    : '  none';
  const held = Object.entries(o.nodes).filter(([, n]) => n.holds?.length);
  const holds = held.length
    ? `\nheld in govern mode (Karpenter's node annotation karpenter.sh/do-not-disrupt):\n${held
        .map(([name, n]) => {
          const also = n.overblocks
            ? ` — the annotation also blocks ${n.overblocks.join(', ')}, which the policy allows`
            : '';
          return `  ${name}: ${n.holds!.map((h) => `${h.code}: ${h.message}`).join(' | ')}${also}`;
        })
        .join('\n')}\n`
    : '';
  const paused = Object.entries(o.nodePools).flatMap(([name, p]) =>
    (p.paused ?? []).map((x) => `  ${name}: ${x.message}`),
  );
  const pauses = paused.length ? `\npaused:\n${paused.join('\n')}\n` : '';
  const warnings = o.warnings.length ? `\nwarnings:\n${o.warnings.map((w) => `  ${w}`).join('\n')}\n` : '';
  const head = `at ${o.at}\n\n${table(poolRows)}${rates}\n${scopes}\n${table(nodeRows)}\n${waiting}`;
  return `${head}\ndecisions:\n${decisions}\n${pauses}${holds}${warnings}`;
}
