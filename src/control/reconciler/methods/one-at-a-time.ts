// SPDX-License-Identifier: Apache-2.0
// The shape Drift (KARPENTER.md#drift) and kpol's graceful expiration share: oldest first (by
// the condition `orderBy` names, else creation), nodes without reschedulable pods first, one node
// per command, replacements from the scheduling simulation, no price check, no validation.
import type { StateNode } from '../../../core/cluster/state.js';
import { budgetMapping, candidatesFor } from './candidates.js';
import { command, type Method } from './method.js';
import { nodeAndClaim } from './command.js';
import { disruptionBlocked } from '../../../core/observe/event-reasons.js';

const sinceOf = (sn: StateNode, type: string): number =>
  Date.parse(sn.nodeClaim?.status?.conditions?.find((c) => c.type === type)?.lastTransitionTime ?? '') ||
  Date.parse(sn.nodeClaim?.metadata.creationTimestamp ?? '') ||
  0;

/**
 * sinceOf per condition type, kept by NodeClaim (a changed claim is another object): each pass
 * orders every candidate of its reason, most of them the same claims as the pass before.
 */
const sinceByType = new Map<string, WeakMap<object, number>>();

function since(sn: StateNode, type: string): number {
  const nc = sn.nodeClaim;
  if (nc === undefined) return sinceOf(sn, type);
  let kept = sinceByType.get(type);
  if (kept === undefined) sinceByType.set(type, (kept = new WeakMap()));
  let at = kept.get(nc);
  if (at === undefined) kept.set(nc, (at = sinceOf(sn, type)));
  return at;
}

export function oneAtATime(
  name: 'Drift' | 'Expiration',
  reason: 'Drifted' | 'Expired',
  orderBy: string,
  why: string,
): Method {
  return {
    name,
    reason,
    consolidationType: '',
    validation: 'none',
    publishesFilterEvents: false,
    why,
    compute(ctx) {
      const budget = budgetMapping(ctx.evaluation, reason);
      // Each candidate's instant is read once (a comparison parsing two timestamps ran
      // n log n times a pass over hundreds of drifted nodes); the order is the same: by instant,
      // then name, then stably the nodes without reschedulable pods first.
      const keyed = candidatesFor(reason, ctx.evaluation, ctx.index, ctx.instanceTypes).map((c) => ({
        c,
        at: since(c.sn, orderBy),
        busy: Number(c.reschedulable.length > 0),
      }));
      keyed.sort((a, b) => a.busy - b.busy || a.at - b.at || a.c.ref.node.localeCompare(b.c.ref.node));
      for (const { c } of keyed) {
        if (budget.room(c) <= 0) continue;
        const sim = ctx.simulate([c], false);
        if (!sim.ok) {
          // Karpenter's Blocked events: on the Node and its NodeClaim.
          const why = sim.error ?? 'scheduling simulation failed';
          for (const object of nodeAndClaim(c.ref)) ctx.events.publish(disruptionBlocked(object, why));
          continue;
        }
        return [command(ctx, this, [c], sim.replacements, sim.destinations)];
      }
      return [];
    },
  };
}
