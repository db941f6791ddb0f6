// SPDX-License-Identifier: Apache-2.0
// Emptiness (reference §2.6): one delete command with every empty candidate the budgets
// allow, across NodePools, most expensive first.
import { budgetMapping, bySavingsRatio, candidatesFor } from '../candidates.js';
import { command, type Method } from './method.js';

export const emptiness: Method = {
  name: 'Emptiness', reason: 'Empty', consolidationType: 'empty', validates: true,
  compute(ctx) {
    const budget = budgetMapping(ctx.evaluation, 'Empty');
    const chosen = candidatesFor('Empty', ctx.evaluation, ctx.index, ctx.instanceTypes).sort(bySavingsRatio).filter((c) => {
      const left = budget.get(c.ref.nodePool) ?? 0;
      if (left <= 0) return false;
      budget.set(c.ref.nodePool, left - 1);
      return true;
    });
    return chosen.length ? [command(ctx, this, chosen, [])] : [];
  },
};
