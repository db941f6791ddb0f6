// SPDX-License-Identifier: Apache-2.0
// What the disruption methods would do next, in Karpenter's method order, with budgets
// applied (reference §2.1, §2.6, §2.7). Only the first method that yields a command acts.
// Consolidation needs the scheduling simulation (the reconciler); without it this planner
// reports the budget-eligible consolidation candidates instead of a command.
import type { Reason } from '../../rules/model.js';
import type { StateNode } from '../cluster/state.js';
import type { Decision, NodeResult, PoolResult } from './output.js';

type Candidate = { sn: StateNode; result: NodeResult };

const driftedAt = (sn: StateNode): number =>
  Date.parse(sn.nodeClaim?.status?.conditions?.find((c) => c.type === 'Drifted')?.lastTransitionTime ?? '') || 0;

const hasPods = (sn: StateNode): number => (sn.pods.length > 0 ? 1 : 0);

function mapping(pools: Record<string, PoolResult>, reason: Reason): Map<string, number> {
  const m = new Map<string, number>();
  for (const [name, p] of Object.entries(pools)) {
    const a = p.allowed[reason];
    m.set(name, a === null ? Number.MAX_SAFE_INTEGER : (a ?? 0));
  }
  return m;
}

function withReason(cands: readonly Candidate[], reason: Reason): Candidate[] {
  return cands.filter((c) => c.result.reasons.includes(reason));
}

/** Emptiness: one delete command with every empty candidate the budgets allow, across pools. */
function emptiness(cands: Candidate[], pools: Record<string, PoolResult>): Decision | undefined {
  const budget = mapping(pools, 'Empty');
  const chosen: Candidate[] = [];
  for (const c of [...withReason(cands, 'Empty')].sort((a, b) => a.sn.name.localeCompare(b.sn.name))) {
    const left = budget.get(c.result.nodePool) ?? 0;
    if (left <= 0) continue;
    budget.set(c.result.nodePool, left - 1);
    chosen.push(c);
  }
  if (chosen.length === 0) return undefined;
  return { method: 'Emptiness', reason: 'Empty', action: 'delete', nodes: chosen.map((c) => c.sn.name),
    nodePools: [...new Set(chosen.map((c) => c.result.nodePool))].sort() };
}

/** Drift (and kpol's graceful expiration): one node, oldest first, nodes without pods first. */
function oneAtATime(cands: Candidate[], pools: Record<string, PoolResult>, reason: 'Drifted' | 'Expired'): Decision | undefined {
  const budget = mapping(pools, reason);
  const ordered = [...withReason(cands, reason)]
    .sort((a, b) => driftedAt(a.sn) - driftedAt(b.sn) || a.sn.name.localeCompare(b.sn.name))
    .sort((a, b) => hasPods(a.sn) - hasPods(b.sn));
  const c = ordered.find((x) => (budget.get(x.result.nodePool) ?? 0) > 0);
  if (!c) return undefined;
  return { method: reason === 'Drifted' ? 'Drift' : 'Expiration', reason, action: c.sn.pods.length ? 'replace' : 'delete',
    nodes: [c.sn.name], nodePools: [c.result.nodePool],
    note: c.sn.pods.length ? 'replacement capacity is chosen by the scheduling simulation' : undefined };
}

export function planDecisions(cands: Candidate[], pools: Record<string, PoolResult>): Decision[] {
  for (const step of [
    () => emptiness(cands, pools),
    () => oneAtATime(cands, pools, 'Drifted'),
    () => oneAtATime(cands, pools, 'Expired'),
  ]) {
    const d = step();
    if (d) return [d];
  }
  const budget = mapping(pools, 'Underutilized');
  const under = withReason(cands, 'Underutilized').filter((c) => (budget.get(c.result.nodePool) ?? 0) > 0);
  if (under.length === 0) return [];
  return [{ method: 'SingleNodeConsolidation', reason: 'Underutilized', action: 'delete', nodes: under.map((c) => c.sn.name),
    nodePools: [...new Set(under.map((c) => c.result.nodePool))].sort(),
    note: 'consolidation candidates within budget; whether to delete or replace needs the scheduling simulation' }];
}
