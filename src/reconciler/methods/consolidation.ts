// SPDX-License-Identifier: Apache-2.0
// computeConsolidation (reference §2.9): can these candidates go — deleted outright, or
// replaced by one cheaper NodeClaim? Shared by multi- and single-node consolidation.
import type { Candidate } from '../candidates.js';
import type { Replacement } from '../command.js';
import type { MethodContext } from './method.js';

export type Consolidation =
  | { kind: 'delete' }
  | { kind: 'replace'; replacement: Replacement }
  | { kind: 'none'; why: string };

/** The worst price a launch of this type could cost (§2.9): the dearest available offering in the first non-empty class of reserved → spot → on-demand. */
function worstLaunchPrice(ctx: MethodContext, typeName: string, spotOnly: boolean): number {
  const it = ctx.instanceTypes.get(typeName);
  if (!it) return Infinity;
  for (const ct of spotOnly ? ['spot'] : ['reserved', 'spot', 'on-demand']) {
    const prices = it.offerings.filter((o) => o.available && o.capacityType === ct).map((o) => o.price);
    if (prices.length) return Math.max(...prices);
  }
  return Infinity;
}

export function computeConsolidation(ctx: MethodContext, candidates: readonly Candidate[]): Consolidation {
  const sim = ctx.simulate(candidates, true);
  if (!sim.ok) return { kind: 'none', why: sim.error ?? 'not all pods would schedule' };
  if (sim.replacements.length === 0) return { kind: 'delete' };
  if (sim.replacements.length > 1) return { kind: 'none', why: `Can't remove without creating ${sim.replacements.length} candidates` };
  const r = sim.replacements[0];
  const candidatePrice = candidates.reduce((s, c) => s + c.ref.price, 0);
  const allSpot = candidates.every((c) => c.ref.capacityType === 'spot');
  if (allSpot) return { kind: 'none', why: "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node" };
  const cheaper = r.instanceTypes.filter((t) => worstLaunchPrice(ctx, t, false) < candidatePrice);
  if (cheaper.length === 0) return { kind: 'none', why: "Can't replace with a cheaper node" };
  return { kind: 'replace', replacement: { ...r, instanceTypes: cheaper, price: Math.min(...cheaper.map((t) => worstLaunchPrice(ctx, t, false))) } };
}
