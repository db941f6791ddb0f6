// SPDX-License-Identifier: Apache-2.0
// Emptiness (KARPENTER.md#emptiness): one delete command with every empty candidate the budgets
// allow, across NodePools, most expensive first.
import { command, withinBudgetBySavings, type Method } from './method.js';

export const emptiness: Method = {
  name: 'Emptiness',
  reason: 'Empty',
  consolidationType: 'empty',
  validation: 'shrink',
  publishesFilterEvents: true,
  why:
    'Empty nodes go first and together: no pod moves, so no scheduling check; validation may ' +
    'drop the nodes that filled up.',
  compute(ctx) {
    const chosen = withinBudgetBySavings(ctx, 'Empty');
    return chosen.length ? [command(ctx, this, chosen, [])] : [];
  },
};
