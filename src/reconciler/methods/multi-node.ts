// SPDX-License-Identifier: Apache-2.0
// Multi-node consolidation (reference §2.10): the longest prefix of candidates (in savings
// order, within budgets, at most 100) that can all go at once, found by binary search.
import { budgetMapping, bySavingsRatio, candidatesFor, type Candidate } from '../candidates.js';
import { computeConsolidation, type Consolidation } from './consolidation.js';
import { LABEL_INSTANCE_TYPE } from '../../cluster/types.js';
import { command, type Method, type MethodContext } from './method.js';

const MAX_CANDIDATES = 100;

export const multiNode: Method = {
  name: 'MultiNodeConsolidation', reason: 'Underutilized', consolidationType: 'multi', validates: true,
  compute(ctx) {
    const budget = budgetMapping(ctx.evaluation, 'Underutilized');
    const kept = candidatesFor('Underutilized', ctx.evaluation, ctx.index, ctx.instanceTypes).sort(bySavingsRatio).filter((c) => {
      const left = budget.get(c.ref.nodePool) ?? 0;
      if (left <= 0) return false;
      budget.set(c.ref.nodePool, left - 1);
      return true;
    });
    if (kept.length < 2) return [];
    const max = Math.min(kept.length, MAX_CANDIDATES);
    let lo = 1;
    let hi = kept.length <= max ? kept.length - 1 : max;
    let best: { batch: Candidate[]; result: Consolidation } | undefined;
    while (lo <= hi) {
      const mid = Math.floor((lo + hi) / 2);
      const batch = kept.slice(0, mid + 1);
      const result = computeConsolidation(ctx, batch);
      if (result.kind !== 'none' && !replacesWithSameType(ctx, batch, result)) {
        best = { batch, result };
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (!best) return [];
    const { batch, result } = best;
    return [command(ctx, this, batch, result.kind === 'replace' ? [result.replacement] : [])];
  },
};

/** §2.10 step 3: drop replacement types priced at or above the cheapest candidate that already runs one of them ("replacing 2×big+small with the small type is just deleting the bigs"); true when none is left. */
function replacesWithSameType(ctx: MethodContext, batch: Candidate[], result: Consolidation): boolean {
  if (result.kind !== 'replace') return false;
  const types = new Set(result.replacement.instanceTypes);
  const running = batch.filter((c) => types.has(c.sn.node?.metadata.labels?.[LABEL_INSTANCE_TYPE] ?? ''));
  if (running.length === 0) return false;
  const ceiling = Math.min(...running.map((c) => c.ref.price));
  const price = (t: string) => Math.min(...(ctx.instanceTypes.get(t)?.offerings.filter((o) => o.available).map((o) => o.price) ?? [Infinity]));
  result.replacement.instanceTypes = result.replacement.instanceTypes.filter((t) => price(t) < ceiling);
  return result.replacement.instanceTypes.length === 0;
}
