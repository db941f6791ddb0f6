// SPDX-License-Identifier: Apache-2.0
// Emptiness (KARPENTER.md#emptiness): one delete command with every empty candidate the budgets
// allow, across NodePools, most expensive first.
import { budgetMapping, bySavingsRatio, candidatesFor, takeWithinBudget } from './candidates.js';
import { command, type Method } from './method.js';

export const emptiness: Method = {
  name: 'Emptiness', reason: 'Empty', consolidationType: 'empty', validation: 'shrink', publishesFilterEvents: true,
  why: 'Empty nodes go first and together: no pod moves, so no scheduling check; validation may drop the nodes that filled up.',
  compute(ctx) {
    const budget = budgetMapping(ctx.evaluation, 'Empty');
    const chosen = takeWithinBudget(candidatesFor('Empty', ctx.evaluation, ctx.index, ctx.instanceTypes).sort(bySavingsRatio), budget);
    return chosen.length ? [command(ctx, this, chosen, [])] : [];
  },
};
