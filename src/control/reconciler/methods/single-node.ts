// SPDX-License-Identifier: Apache-2.0
// Single-node consolidation (KARPENTER.md#single-node): candidates in savings order, interleaved by
// NodePool; the first one that can be deleted or replaced by a cheaper node wins.
import { budgetMapping, candidatesBySavings, type Candidate } from './candidates.js';
import { balancedApproves } from './balanced.js';
import { computeConsolidation, SPOT_TO_SPOT_CONSOLIDATION } from './consolidation.js';
import { command, type Enough, type Method, type MethodContext } from './method.js';
import { deadline, SINGLE_NODE_TIMEOUT_MS } from './timeouts.js';
import { nodeAndClaim } from './command.js';
import { unconsolidatable, UNCONSOLIDATABLE_DEDUPE_MS } from '../../../core/observe/event-reasons.js';

/**
 * 1st candidate of each pool, then the 2nd of each, … Pools a previous pass did not reach
 * before its timeout come first; within each group pools are in name order (Karpenter's map
 * order is unspecified; kpol is deterministic).
 */
export function interleave(cands: readonly Candidate[], unreached: ReadonlySet<string> = new Set()): Candidate[] {
  const byPool = new Map<string, Candidate[]>();
  for (const c of cands) {
    const list = byPool.get(c.ref.nodePool);
    if (list) list.push(c);
    else byPool.set(c.ref.nodePool, [c]);
  }
  const names = [...byPool.keys()].sort();
  const lists = [...names.filter((k) => unreached.has(k)), ...names.filter((k) => !unreached.has(k))].map((k) =>
    byPool.get(k)!,
  );
  const out: Candidate[] = [];
  for (let i = 0; out.length < cands.length; i++) for (const l of lists) if (i < l.length) out.push(l[i]);
  return out;
}

export const singleNode: Method = {
  name: 'SingleNodeConsolidation',
  reason: 'Underutilized',
  consolidationType: 'single',
  validation: 'exact',
  publishesFilterEvents: false,
  why:
    'One node at a time catches what no batch can: the first valid move wins; multi-node ' +
    'already published the filter events.',
  compute(ctx) {
    const budget = budgetMapping(ctx.evaluation, 'Underutilized');
    const ordered = interleave(
      candidatesBySavings('Underutilized', ctx.evaluation, ctx.index, ctx.instanceTypes),
      ctx.unreachedPools,
    );
    const expired = deadline(ctx, SINGLE_NODE_TIMEOUT_MS);
    const unreached = new Set(ordered.map((c) => c.ref.nodePool));
    for (const [i, c] of ordered.entries()) {
      if (expired()) {
        ctx.timedOut?.(
          'single',
          `abandoning single-node consolidation due to timeout after evaluating ${i} candidates`,
        );
        remember(ctx, unreached);
        return [];
      }
      unreached.delete(c.ref.nodePool);
      if (budget.room(c) <= 0) continue;
      // A spot node with spot-to-spot off moves only without a new claim, or with one that leaves
      // spot out: the simulation may stop at its first claim when none could.
      const spot = c.ref.capacityType === 'spot' && !SPOT_TO_SPOT_CONSOLIDATION;
      const result = computeConsolidation(ctx, [c], spot ? SPOT_ONLY : DECIDED);
      if (result.kind === 'none') {
        // A stopped run's words may not be the whole run's: those are found if an event is
        // recorded, once for both (the Node's and the NodeClaim's windows usually end together).
        let whole: string | undefined;
        const why = result.stopped ? () => (whole ??= wholeWhy(ctx, c)) : result.why;
        for (const object of nodeAndClaim(c.ref))
          ctx.events.publish(unconsolidatable(object, why), UNCONSOLIDATABLE_DEDUPE_MS);
        continue;
      }
      if (!balancedApproves(ctx, [c], result)) continue;
      return [command(ctx, this, [c], result.kind === 'replace' ? [result.replacement] : [], result.destinations)];
    }
    remember(ctx, unreached);
    return [];
  },
};

/** Stops at the first pod left without a place: the words are found again if an event is recorded. */
const DECIDED: Enough = { replacements: Infinity };
const SPOT_ONLY: Enough = { replacements: Infinity, spotOnly: true };

/** Why the candidate cannot go, as the simulation run to its end says (the reference's words). */
function wholeWhy(ctx: MethodContext, c: Candidate): string {
  const result = computeConsolidation(ctx, [c]);
  return result.kind === 'none' ? result.why : 'not all pods would schedule';
}

/** What the next pass puts first: the pools this pass did not reach (none after a full pass). */
function remember(ctx: MethodContext, unreached: ReadonlySet<string>): void {
  if (!ctx.unreachedPools) return;
  ctx.unreachedPools.clear();
  for (const p of unreached) ctx.unreachedPools.add(p);
}
