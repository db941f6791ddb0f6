// SPDX-License-Identifier: Apache-2.0
// explain: the rule trace for one node — every node rule with the fact values it tested and
// whether it fired, the pool rules of its policy, and the resulting verdict and allowances.
import { nodeVerdict, type NodeVerdict } from '../../rules/candidates.js';
import type { RuleTrace } from '../../rules/engine.js';
import type { NodeDetails, NodeFacts, PoolFacts } from '../../rules/facts.js';
import type { PolicySpec } from '../../rules/model.js';
import { nodePoolOf, type ClusterIndex } from '../cluster/state.js';
import { NodeFactDeriver } from '../facts/node-facts.js';
import { Evaluator, reasonsInScope } from './evaluate-cluster.js';
import type { PoolResult } from './output.js';
import { resolvePolicies } from './resolve-policies.js';

export interface Explanation {
  node: string;
  nodePool: string;
  policy: string;
  facts: NodeFacts;
  details: NodeDetails;
  verdict: NodeVerdict;
  nodeRules: RuleTrace[];
  poolRules: RuleTrace[];
  allowances?: PoolResult;
}

export async function explainNode(index: ClusterIndex, policies: readonly PolicySpec[], nodeName: string, nowMs: number): Promise<Explanation | undefined> {
  const sn = index.nodesByName.get(nodeName);
  if (!sn) return undefined;
  const evaluator = new Evaluator();
  const all = await evaluator.evaluate(index, policies, nowMs);
  const poolName = nodePoolOf(sn) ?? '';
  const governed = resolvePolicies(index.snapshot.nodePools, policies).byPool.get(poolName);
  const policy = governed?.policy;
  const engine = evaluator.engineFor(policy ?? { ...emptyPolicy });
  const { windows, errors } = evaluator.windowFacts(engine, nowMs);
  const deriver = new NodeFactDeriver(index, engine.graph, { queued: new Set(), marked: new Set(), nominated: new Set() }, () => {});
  const { facts, details } = deriver.derive(sn, nowMs, windows);
  const nodeRules = await engine.explainNode(facts);
  const poolRules = await engine.explainPool({ now: nowMs, budgetErrors: errors.length, ...windows } as PoolFacts);
  const verdict = nodeVerdict(await engine.runNode(facts), details, reasonsInScope(engine.graph.spec));
  return { node: nodeName, nodePool: poolName, policy: all.nodePools[poolName]?.policy ?? '(none)', facts, details, verdict,
    nodeRules, poolRules, allowances: all.nodePools[poolName] };
}

const emptyPolicy: PolicySpec = {
  name: '(no nodepool)', origin: 'karpenter', target: { kind: 'names', names: [] }, consolidationPolicy: 'WhenEmptyOrUnderutilized',
  consolidateAfterSeconds: 0, expireAfterSeconds: undefined, expiration: 'forceful', budgets: [], freezes: [], podWindows: [], maintenanceWindows: [],
};

const val = (v: unknown) => JSON.stringify(v);

export function renderExplanation(e: Explanation): string {
  const lines = [`node ${e.node} (NodePool ${e.nodePool || '-'}, policy ${e.policy})`, ''];
  lines.push(e.verdict.reasons.length ? `candidate for: ${e.verdict.reasons.join(', ')}` : 'not a candidate for any reason');
  for (const b of e.verdict.blocked) lines.push(`  blocked ${b.code}: ${b.message}`);
  if (e.allowances) {
    lines.push('', `NodePool ${e.nodePool}: ${e.allowances.nodes} nodes, ${e.allowances.disrupting} disrupting`);
    for (const [r, v] of Object.entries(e.allowances.allowed)) lines.push(`  ${r}: allowed ${v ?? 'unlimited'} (budget ${e.allowances.budgets[r as never] ?? 'unlimited'})`);
    for (const err of e.allowances.errors) lines.push(`  error: ${err}`);
  }
  const trace = (title: string, rules: RuleTrace[]) => {
    lines.push('', title);
    for (const r of rules) {
      lines.push(`  ${r.fired ? '✔ fired ' : '✘ not   '} ${r.rule} → ${r.event}`);
      for (const c of r.conditions) lines.push(`      ${c.result ? '✔' : '✘'} ${c.fact} ${c.operator} ${val(c.value)} (fact: ${val(c.factValue)})`);
    }
  };
  trace('node rules:', e.nodeRules.filter((r) => r.fired || r.conditions.some((c) => c.result)));
  trace('pool rules:', e.poolRules);
  return lines.join('\n');
}
