// SPDX-License-Identifier: Apache-2.0
// computeConsolidation (reference §2.9): can these candidates go — deleted outright, or
// replaced by one cheaper NodeClaim? Shared by multi- and single-node consolidation.
import { worstLaunchPrice } from '../../cloud/catalog.js';
import type { Candidate } from '../candidates.js';
import type { Replacement } from '../command.js';
import type { MethodContext } from './method.js';

export type Consolidation =
  | { kind: 'delete' }
  | { kind: 'replace'; replacement: Replacement }
  | { kind: 'none'; why: string };

export function computeConsolidation(ctx: MethodContext, candidates: readonly Candidate[]): Consolidation {
  const sim = ctx.simulate(candidates, true);
  if (!sim.ok) return { kind: 'none', why: sim.error ?? 'not all pods would schedule' };
  if (sim.replacements.length === 0) return { kind: 'delete' };
  if (sim.replacements.length > 1) return { kind: 'none', why: `Can't remove without creating ${sim.replacements.length} candidates` };
  const r = sim.replacements[0];
  const candidatePrice = candidates.reduce((s, c) => s + c.ref.price, 0);
  const allSpot = candidates.every((c) => c.ref.capacityType === 'spot');
  if (allSpot) return { kind: 'none', why: "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node" };
  // Only offerings the replacement could really launch on (its capacity types and zones) count.
  const worst = (t: string) => {
    const it = ctx.instanceTypes.get(t);
    return it ? worstLaunchPrice(it, r.requirements) : Infinity;
  };
  const cheaper = r.instanceTypes.filter((t) => worst(t) < candidatePrice);
  if (cheaper.length === 0) return { kind: 'none', why: "Can't replace with a cheaper node" };
  return { kind: 'replace', replacement: { ...r, instanceTypes: cheaper, price: Math.min(...cheaper.map(worst)) } };
}
