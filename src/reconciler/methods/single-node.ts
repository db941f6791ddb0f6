// SPDX-License-Identifier: Apache-2.0
// Single-node consolidation (reference §2.11): candidates in savings order, interleaved by
// NodePool; the first one that can be deleted or replaced by a cheaper node wins.
import { budgetMapping, bySavingsRatio, candidatesFor, type Candidate } from '../candidates.js';
import { balancedApproves } from './balanced.js';
import { computeConsolidation } from './consolidation.js';
import { command, type Method } from './method.js';

/** 1st candidate of each pool, then the 2nd of each, … (pools in name order for determinism). */
function interleave(cands: Candidate[]): Candidate[] {
  const byPool = new Map<string, Candidate[]>();
  for (const c of cands) byPool.set(c.ref.nodePool, [...(byPool.get(c.ref.nodePool) ?? []), c]);
  const lists = [...byPool.keys()].sort().map((k) => byPool.get(k)!);
  const out: Candidate[] = [];
  for (let i = 0; out.length < cands.length; i++) for (const l of lists) if (i < l.length) out.push(l[i]);
  return out;
}

export const singleNode: Method = {
  name: 'SingleNodeConsolidation', reason: 'Underutilized', consolidationType: 'single', validates: true,
  compute(ctx) {
    const budget = budgetMapping(ctx.evaluation, 'Underutilized');
    for (const c of interleave(candidatesFor('Underutilized', ctx.evaluation, ctx.index, ctx.instanceTypes).sort(bySavingsRatio))) {
      if ((budget.get(c.ref.nodePool) ?? 0) <= 0) continue;
      const result = computeConsolidation(ctx, [c]);
      if (result.kind === 'none') {
        ctx.events.publish({ type: 'Normal', reason: 'Unconsolidatable', message: result.why, object: { kind: 'Node', name: c.ref.node } }, 15 * 60_000);
        ctx.events.publish({ type: 'Normal', reason: 'Unconsolidatable', message: result.why, object: { kind: 'NodeClaim', name: c.ref.nodeClaim } }, 15 * 60_000);
        continue;
      }
      if (!balancedApproves(ctx, [c], result)) continue;
      return [command(ctx, this, [c], result.kind === 'replace' ? [result.replacement] : [])];
    }
    return [];
  },
};
