// SPDX-License-Identifier: Apache-2.0
// Cluster and selector budgets at one instant (issue 15, rules/README §3.13): which nodes each
// scope holds, how many of them are disrupting, and what its fired budget events allow. The rule
// graphs decide when a budget is in force (`scope:<id>` pool rules) and which nodes a selector
// budget counts (`in-scope:<id>` node rules); this file only counts, with the same arithmetic as a
// NodePool's budgets (rules/budgets.ts). A candidate may be disrupted only while every scope that
// holds it has room; src/control/reconciler/methods/candidates.ts spends that room per command.
import { quantityValue } from '../../../rules/budgets.js';
import type { FiredEvent } from '../../../rules/engine.js';
import { UNBOUNDED, type PolicySpec, type Reason, type ScopedBudgetSpec } from '../../../rules/model.js';
import type { StateNode } from '../cluster/state.js';
import type { EvalOutput, NodeResult, ScopeResult } from './output.js';

interface ScopeInput {
  spec: ScopedBudgetSpec;
  /** The policies that carry it and govern some pool: the pool events of the first decide. */
  carriers: PolicySpec[];
}

export interface ScopeCounting {
  /** The governing policy per NodePool name. */
  policyOf: ReadonlyMap<string, PolicySpec>;
  /** A policy's fired pool events at this instant. */
  eventsOf: (policy: PolicySpec) => readonly FiredEvent[];
  /** The reasons a policy's pools are budgeted for. */
  reasonsOf: (policy: PolicySpec) => Reason[];
  /** Counted nodes (managed, initialized, not terminating) with their pool and whether they are disrupting. */
  counted: ReadonlyArray<{ sn: StateNode; pool: string; disrupting: boolean }>;
  nodes: Record<string, NodeResult>;
}

/** Every scoped budget of the governing policies, once (a cluster budget rides on each policy of its file). */
function scopesOf(policies: Iterable<PolicySpec>): Map<string, ScopeInput> {
  const out = new Map<string, ScopeInput>();
  for (const policy of policies)
    for (const spec of policy.scopedBudgets ?? []) {
      const s = out.get(spec.id);
      if (s) s.carriers.push(policy);
      else out.set(spec.id, { spec, carriers: [policy] });
    }
  return out;
}

/**
 * The pools a scope covers: a selector budget its own policy's pools; a cluster budget the pools
 * its file's policies govern (the owners), or those of them it names. A named pool that no owner
 * governs is never counted, whoever governs it: the ownership rule holds at run time too.
 */
function poolsOf(spec: ScopedBudgetSpec, carriers: readonly PolicySpec[], policyOf: ScopeCounting['policyOf']) {
  const pools: string[] = [];
  for (const [pool, policy] of policyOf) {
    if (!carriers.includes(policy)) continue;
    if (spec.scope.kind === 'cluster' && spec.scope.nodePools && !spec.scope.nodePools.includes(pool)) continue;
    pools.push(pool);
  }
  return pools.sort();
}

/** Each scope's numbers, and the scopes each node belongs to (added to fresh copies of the node results). */
export function countScopes(c: ScopeCounting): Record<string, ScopeResult> {
  const results: Record<string, ScopeResult> = Object.create(null) as Record<string, ScopeResult>;
  const scopes = scopesOf(new Set(c.policyOf.values()));
  for (const [id, { spec, carriers }] of scopes) {
    const pools = poolsOf(spec, carriers, c.policyOf);
    const inPools = new Set(pools);
    const member = (name: string, pool: string) =>
      inPools.has(pool) && (spec.scope.kind === 'cluster' || (c.nodes[name]?.budgetScopes ?? []).includes(id));
    let nodes = 0;
    let disrupting = 0;
    for (const n of c.counted) {
      if (!member(n.sn.name, n.pool)) continue;
      nodes++;
      if (n.disrupting) disrupting++;
    }
    const events = carriers.flatMap((p) => c.eventsOf(p));
    const failClosed = carriers.some((p) => c.eventsOf(p).some((e) => e.type === 'fail-closed'));
    const fired = events.filter(
      (e): e is Extract<FiredEvent, { type: 'scope-budget' }> => e.type === 'scope-budget' && e.params.scope === id,
    );
    const result: ScopeResult = {
      kind: spec.scope.kind,
      statement: spec.statement,
      at: spec.at,
      nodePools: pools,
      nodes,
      disrupting,
      budgets: {},
      allowed: {},
    };
    const reasons = new Set(carriers.flatMap((p) => c.reasonsOf(p)));
    for (const reason of reasons) {
      if (spec.reasons !== null && !spec.reasons.includes(reason)) continue;
      // Fail closed as a pool does: a budget that cannot be evaluated allows nothing.
      let value = failClosed ? 0 : UNBOUNDED;
      // One event per carrier when it is active; they are the same budget, so the minimum is its value.
      for (const e of fired) value = Math.min(value, quantityValue(e.params.nodes, nodes));
      result.budgets[reason] = value >= UNBOUNDED ? null : value;
      result.allowed[reason] = value >= UNBOUNDED ? null : Math.max(value - disrupting, 0);
    }
    results[id] = result;
    // Cluster membership is by pool: recorded on the node so that the reconciler reads one list.
    if (spec.scope.kind === 'cluster')
      for (const [name, n] of Object.entries(c.nodes))
        if (inPools.has(n.nodePool)) c.nodes[name] = { ...n, budgetScopes: [...(n.budgetScopes ?? []), id] };
  }
  return results;
}

/**
 * Why-not for candidates whose scope is full: for each reason the node is a candidate for, the
 * scopes that hold it with no room left, named by statement and file:line.
 */
export function scopeHolds(nodes: Record<string, NodeResult>, scopes: Record<string, ScopeResult>): void {
  for (const [name, n] of Object.entries(nodes)) {
    if (!n.candidate || !n.budgetScopes) continue;
    const held: NonNullable<NodeResult['scopeHolds']> = [];
    for (const reason of n.reasons)
      for (const id of n.budgetScopes) {
        const s = scopes[id];
        if (s?.allowed[reason] !== 0) continue;
        held.push({
          reason,
          scope: id,
          message:
            `${s.statement} (${s.at}) has no room for ${reason}: ${s.disrupting} of ${s.nodes} ` +
            `node(s) in its scope disrupting, budget ${s.budgets[reason]}`,
        });
      }
    if (held.length > 0) nodes[name] = { ...n, scopeHolds: held };
  }
}

/**
 * A pool's allowance with the cluster budgets that cover it folded in (the smaller of the two per
 * reason), for views drawn per pool: the week calendar of the editor and of `kpol simulate`. A
 * selector budget covers only some nodes of a pool, so it is left out here (the scope's own
 * numbers are in `scopes`).
 */
export function poolAllowedWithScopes(ev: EvalOutput, pool: string): Partial<Record<Reason, number | null>> {
  const out = { ...(ev.nodePools[pool]?.allowed ?? {}) };
  for (const s of Object.values(ev.scopes ?? {})) {
    if (s.kind !== 'cluster' || !s.nodePools.includes(pool)) continue;
    for (const [r, v] of Object.entries(s.allowed) as [Reason, number | null][]) {
      const own = out[r];
      if (own === undefined || v === null) continue;
      out[r] = own === null ? v : Math.min(own, v);
    }
  }
  return out;
}
