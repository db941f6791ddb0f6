// SPDX-License-Identifier: Apache-2.0
// Why a NodePool could start no disruption of a reason at a tick: the pool-level half of the
// report's "blocked" story. A node's own blocks (do-not-disrupt, windows, PDBs) are counted per
// node; a pool held at 0 blocks every node of it at once, and Karpenter's DisruptionBlocked event
// only says "due to blocking budget". This reads the evaluation's own answer — the pauses, rate
// budgets, errors and cluster budgets it reports — and names the first that explains the 0; it
// decides nothing itself.
import type { Reason } from '../../../rules/model.js';
import type { EvalOutput, PoolResult } from '../../core/eval/output.js';

/**
 * In the order they are looked for. A pause names its reasons (an unreadable one too), and a used-up
 * rate budget its own; a pool error (a policy problem, an unreadable record) fails every reason closed.
 */
export const HOLD_CAUSES = ['pause', 'rate', 'error', 'scope', 'budget'] as const;
export type HoldCause = (typeof HOLD_CAUSES)[number];

export interface Held {
  nodePool: string;
  reason: Reason;
  cause: HoldCause;
  /** The evaluation's own words for it (a rate budget's use, a pause's message, a scope's statement). */
  message: string;
}

const covers = (reasons: readonly Reason[] | null, reason: Reason) => reasons === null || reasons.includes(reason);

/**
 * Each pools record's answer, with the scopes record it was read with: an evaluation reused across
 * quiet ticks is a new output holding the same two records, and a simulation asks at every tick.
 */
const answers = new WeakMap<EvalOutput['nodePools'], { scopes: EvalOutput['scopes']; held: readonly Held[] }>();

/** Every (pool, reason) that has nodes and may start no disruption at this evaluation, with its cause. */
export function heldAtZero(ev: EvalOutput): readonly Held[] {
  const kept = answers.get(ev.nodePools);
  if (kept !== undefined && kept.scopes === ev.scopes) return kept.held;
  const held = findHeld(ev);
  answers.set(ev.nodePools, { scopes: ev.scopes, held });
  return held;
}

function findHeld(ev: EvalOutput): Held[] {
  const out: Held[] = [];
  for (const [nodePool, p] of Object.entries(ev.nodePools)) {
    if (p.nodes === 0) continue;
    for (const [reason, budget] of Object.entries(p.budgets) as [Reason, number | null][]) {
      const held = budget === 0 ? ownHold(p, reason) : scopeHold(ev, nodePool, reason);
      if (held) out.push({ nodePool, reason, ...held });
    }
  }
  return out;
}

function ownHold(p: PoolResult, reason: Reason): Omit<Held, 'nodePool' | 'reason'> {
  const pause = p.paused?.find((x) => covers(x.reasons, reason));
  if (pause) return { cause: 'pause', message: pause.message };
  const rate = p.rates?.find((r) => r.left === 0 && covers(r.reasons, reason));
  if (rate) return { cause: 'rate', message: rate.message };
  if (p.errors.length) return { cause: 'error', message: p.errors[0]! };
  return { cause: 'budget', message: `policy ${p.policy}: the budget for ${reason} is 0` };
}

/** A pool with room of its own that a full cluster budget covering it holds at 0 (budget-scopes.ts). */
function scopeHold(ev: EvalOutput, pool: string, reason: Reason): Omit<Held, 'nodePool' | 'reason'> | undefined {
  for (const s of Object.values(ev.scopes ?? {})) {
    if (s.kind !== 'cluster' || !s.nodePools.includes(pool) || s.allowed[reason] !== 0) continue;
    const budget = s.budgets[reason];
    return {
      cause: 'scope',
      message: `${s.statement}: ${s.disrupting} of ${s.nodes} nodes disrupting, budget ${budget ?? '∞'}`,
    };
  }
  return undefined;
}
