// SPDX-License-Identifier: Apache-2.0
// explain: the rule trace for one node — every node rule with the fact values it tested and
// whether it fired, the pool rules of its policy, and the resulting verdict and allowances.
import { nodeVerdict, type NodeVerdict } from '../../../rules/node-verdict.js';
import type { RuleTrace } from '../../../rules/engine.js';
import type { NodeDetails, NodeFacts, PoolFacts } from '../../../rules/facts.js';
import type { PolicySpec } from '../../../rules/model.js';
import { nodePoolOf, type ClusterIndex, type StateNode } from '../cluster/state.js';
import { NodeFactDeriver } from '../facts/node-facts.js';
import { pauseFacts } from '../facts/pauses.js';
import { Evaluator, ORPHAN, reasonsInScope } from './evaluate-cluster.js';
import { windowFacts } from './window-facts.js';
import type { EvalOutput, NodeResult, PoolResult, ScopeResult } from './output.js';
import { resolvePolicies } from './resolve-policies.js';
import { statementLabels } from './statements.js';

/** A rule's trace with the policy's own words for it, where it has any (statements.ts). */
export type ExplainedRule = RuleTrace & { statement?: string };

export interface Explanation {
  node: string;
  /** The machine's NodeClaim and providerID, when known. */
  nodeClaim?: string;
  providerID?: string;
  nodePool: string;
  policy: string;
  facts: NodeFacts;
  details: NodeDetails;
  verdict: NodeVerdict;
  nodeRules: ExplainedRule[];
  poolRules: ExplainedRule[];
  /** The policy's words for the window facts the rules test (`window:b2` → its statement). */
  windows: Record<string, string>;
  allowances?: PoolResult;
  /** The cluster and selector budgets whose scope holds the node (issue 15), and what they hold back. */
  scopes?: Array<ScopeResult & { id: string }>;
  scopeHolds?: NodeResult['scopeHolds'];
}

/** The last segment of a providerID (`aws:///us-west-2a/i-0abc…` → `i-0abc…`): the cloud's instance id. */
const instanceId = (providerID: string | undefined): string | undefined => providerID?.split('/').filter(Boolean).pop();

/**
 * The machine `query` names: a Node name, else a NodeClaim name, else a providerID, else an
 * instance id (the providerID's last segment). `matches` lists them when several machines
 * share an instance id.
 */
export function findMachine(index: ClusterIndex, query: string): { machine?: StateNode; matches: string[] } {
  const exact = index.nodesByName.get(query) ?? index.nodeClaimsByName.get(query);
  if (exact) return { machine: exact, matches: [exact.name] };
  const byProvider = (id: string | undefined) =>
    index.stateNodes.filter(
      (sn) =>
        sn.providerID !== undefined && id !== undefined && (sn.providerID === id || instanceId(sn.providerID) === id),
    );
  const found = byProvider(query);
  return { machine: found.length === 1 ? found[0] : undefined, matches: found.map((sn) => sn.name) };
}

/**
 * The rule trace for the machine `query` names (see findMachine). `texts` maps policy file
 * names to their text, for the statements budgets and windows are named by.
 */
export async function explainNode(
  index: ClusterIndex,
  policies: readonly PolicySpec[],
  query: string,
  nowMs: number,
  texts: ReadonlyMap<string, string> = new Map(),
): Promise<Explanation | undefined> {
  const sn = findMachine(index, query).machine;
  if (!sn) return undefined;
  const evaluator = new Evaluator();
  const all = await evaluator.evaluate(index, policies, nowMs);
  const poolName = nodePoolOf(sn) ?? '';
  const governed = resolvePolicies(index.snapshot.nodePools, policies).byPool.get(poolName);
  const policy = governed?.policy;
  const engine = evaluator.engineFor(policy ?? { ...ORPHAN });
  const { windows, errors } = windowFacts(engine, nowMs);
  const deriver = new NodeFactDeriver(
    index,
    engine.graph,
    { queued: new Set(), marked: new Set(), nominated: new Set() },
    () => {},
  );
  const { facts, details } = deriver.derive(sn, nowMs, windows);
  const labels = statementLabels(engine.graph.spec, texts);
  const explained = (rules: RuleTrace[]): ExplainedRule[] =>
    rules.map((r) => (labels.has(r.rule) ? { ...r, statement: labels.get(r.rule) } : r));
  const nodeRules = explained(await engine.explainNode(facts));
  const paused = pauseFacts(evaluator.pausesIn(index), poolName);
  const poolRules = explained(
    await engine.explainPool({ now: nowMs, budgetErrors: errors.length, ...windows, ...paused } as PoolFacts),
  ).map((r) => (r.rule.startsWith('pause:') ? { ...r, statement: pauseLabel(r.rule, all.nodePools[poolName]) } : r));
  const verdict = nodeVerdict(await engine.runNode(facts), details, reasonsInScope(engine.graph.spec));
  const windowLabels = Object.fromEntries([...labels].filter(([k]) => k.startsWith('window:')));
  return {
    node: sn.name,
    ...(sn.nodeClaim && { nodeClaim: sn.nodeClaim.metadata.name }),
    ...(sn.providerID && { providerID: sn.providerID }),
    nodePool: poolName,
    policy: all.nodePools[poolName]?.policy ?? '(none)',
    facts,
    details,
    verdict,
    nodeRules,
    poolRules,
    windows: windowLabels,
    allowances: all.nodePools[poolName],
    ...scopesOfNode(all, sn.name),
  };
}

function scopesOfNode(all: EvalOutput, node: string): Pick<Explanation, 'scopes' | 'scopeHolds'> {
  const n = all.nodes[node];
  const ids = n?.budgetScopes ?? [];
  if (ids.length === 0) return {};
  const scopes = ids.flatMap((id) => (all.scopes?.[id] ? [{ ...all.scopes[id], id }] : []));
  return { scopes, ...(n?.scopeHolds && { scopeHolds: n.scopeHolds }) };
}

const val = (v: unknown) => JSON.stringify(v);

/** A pause rule in the trace, named by the pauses in force for its reason (or by what it waits for). */
function pauseLabel(rule: string, pool: PoolResult | undefined): string {
  const reason = rule.slice('pause:'.length);
  const by = (pool?.paused ?? []).filter((x) => x.reasons === null || x.reasons.includes(reason as never));
  return by.length ? by.map((x) => x.message).join('; ') : `kpol pause of ${reason} (none in force)`;
}

/** The node's NodePool: its counts, what each reason is allowed and why (buckets, rates, pauses). */
function allowanceLines(nodePool: string, a: NonNullable<Explanation['allowances']>): string[] {
  const lines = [`NodePool ${nodePool}: ${a.nodes} nodes, ${a.disrupting} disrupting`];
  const by = a.disruptingByReason;
  if (by) {
    const each = Object.entries(by).map(([r, n]) => `${r} ${n}`);
    lines.push(`  disrupting by reason: ${each.join(', ') || 'none'}`);
  }
  for (const [r, v] of Object.entries(a.allowed)) {
    const budget = `budget ${a.budgets[r as never] ?? 'unlimited'}`;
    // A bucket subtracts its own reason's disrupting nodes and the unknown ones, not the pool's.
    const bucket = by && a.boundByBucket?.includes(r as never);
    const own = bucket
      ? `, per reason: minus ${(by[r as never] ?? 0) + (by.unknown ?? 0)} disrupting for ${r} or unknown`
      : '';
    lines.push(`  ${r}: allowed ${v ?? 'unlimited'} (${budget}${own})`);
  }
  for (const r of a.rates ?? []) lines.push(`  ${r.message}`);
  for (const err of a.errors) lines.push(`  error: ${err}`);
  for (const x of a.paused ?? []) lines.push(`  ${x.message}`);
  return lines;
}

export function renderExplanation(e: Explanation): string {
  const machine = [
    e.nodeClaim && e.nodeClaim !== e.node ? `NodeClaim ${e.nodeClaim}` : '',
    e.providerID ? `${e.providerID}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const lines = [
    `node ${e.node} (${machine ? `${machine}; ` : ''}NodePool ${e.nodePool || '-'}, policy ${e.policy})`,
    '',
  ];
  lines.push(
    e.verdict.reasons.length ? `candidate for: ${e.verdict.reasons.join(', ')}` : 'not a candidate for any reason',
  );
  for (const b of e.verdict.blocked) lines.push(`  blocked ${b.code}: ${b.message}`);
  if (e.allowances) lines.push('', ...allowanceLines(e.nodePool, e.allowances));
  for (const sc of e.scopes ?? []) {
    lines.push('', `${sc.statement} (${sc.at}): ${sc.nodes} nodes in scope, ${sc.disrupting} disrupting`);
    for (const [r, v] of Object.entries(sc.allowed))
      lines.push(`  ${r}: allowed ${v ?? 'unlimited'} (budget ${sc.budgets[r as never] ?? 'unlimited'})`);
  }
  for (const h of e.scopeHolds ?? []) lines.push(`  held for ${h.reason}: ${h.message}`);
  const condition = (c: RuleTrace['conditions'][number]) => {
    const window = e.windows[c.fact];
    if (window !== undefined && typeof c.value === 'boolean') {
      return (
        `${c.result ? '✔' : '✘'} window ${c.value ? 'open' : 'closed'}: ${window} ` +
        `(now ${c.factValue === true ? 'open' : 'closed'})`
      );
    }
    if (c.fact.startsWith('pause:') && typeof c.factValue === 'number') {
      const ends = c.factValue > 0 ? `ends ${new Date(Math.min(c.factValue, 8.64e15)).toISOString()}` : 'none';
      return `${c.result ? '✔' : '✘'} ${c.fact} after now (fact: ${ends})`;
    }
    return `${c.result ? '✔' : '✘'} ${c.fact} ${c.operator} ${val(c.value)} (fact: ${val(c.factValue)})`;
  };
  const trace = (title: string, rules: ExplainedRule[]) => {
    lines.push('', title);
    for (const r of rules) {
      lines.push(`  ${r.fired ? '✔ fired ' : '✘ not   '} ${r.statement ?? r.rule} → ${r.event}`);
      for (const c of r.conditions) lines.push(`      ${condition(c)}`);
    }
  };
  trace(
    'node rules:',
    e.nodeRules.filter((r) => r.fired || r.conditions.some((c) => c.result)),
  );
  trace('pool rules:', e.poolRules);
  return lines.join('\n');
}
