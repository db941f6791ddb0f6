// SPDX-License-Identifier: Apache-2.0
// Cluster and selector budgets in govern mode (issue 15). Karpenter budgets per NodePool only, so
// each tick the room a scope has left (the evaluation's `scopes[id].allowed`, decided by the rule
// graph) is split into per-pool shares, and each pool gets a budget of `disrupting + share` for the
// reason: Karpenter subtracts the pool's own disrupting nodes and may start `share` more. Shares
// never add up to more than the room, so however Karpenter spends them the scope holds.
//
// The room goes one node at a time, round robin in pool-name order, to the pools that have a
// candidate for the reason inside the scope, each up to its own pool allowance; a pool without such
// a candidate gets 0. A pool in several scopes takes the smallest of its shares. A selector budget
// covers only some nodes of a pool, but Karpenter cannot budget a slice: its share caps the whole
// pool (stricter than standalone, never looser).
import { KARPENTER_REASONS, type Reason } from '../../../rules/model.js';
import type { EvalOutput } from '../../core/eval/output.js';

type KarpenterReason = (typeof KARPENTER_REASONS)[number];

/** Per NodePool, per reason, how many more disruptions the scopes holding it admit; absent: no scope limits it. */
export type ScopeShares = Map<string, Partial<Record<KarpenterReason, number>>>;

export function scopeShares(ev: EvalOutput): ScopeShares {
  const out: ScopeShares = new Map();
  const limit = (pool: string, reason: KarpenterReason, n: number) => {
    const s = out.get(pool) ?? {};
    s[reason] = Math.min(s[reason] ?? n, n);
    out.set(pool, s);
  };
  for (const [id, scope] of Object.entries(ev.scopes ?? {})) {
    for (const reason of KARPENTER_REASONS) {
      const room = scope.allowed[reason];
      if (room === undefined || room === null) continue;
      const wanting = scope.nodePools.filter((pool) => hasCandidate(ev, id, pool, reason));
      const given = splitRoom(room, wanting, (pool) => ev.nodePools[pool]?.allowed[reason]);
      for (const pool of scope.nodePools) limit(pool, reason, given.get(pool) ?? 0);
    }
  }
  return out;
}

function hasCandidate(ev: EvalOutput, scope: string, pool: string, reason: Reason): boolean {
  for (const n of Object.values(ev.nodes))
    if (n.nodePool === pool && n.reasons.includes(reason) && n.budgetScopes?.includes(scope)) return true;
  return false;
}

/** `room` units, one at a time round robin over `pools` (in order), each pool up to its own cap (null: none). */
export function splitRoom(
  room: number,
  pools: readonly string[],
  capOf: (pool: string) => number | null | undefined,
): Map<string, number> {
  const given = new Map<string, number>(pools.map((p) => [p, 0]));
  let left = room;
  let progressed = true;
  while (left > 0 && progressed) {
    progressed = false;
    for (const pool of pools) {
      if (left === 0) break;
      const cap = capOf(pool);
      const g = given.get(pool)!;
      if (cap !== null && g >= (cap ?? 0)) continue;
      given.set(pool, g + 1);
      left--;
      progressed = true;
    }
  }
  return given;
}

const cache = new WeakMap<EvalOutput, ScopeShares>();

/** scopeShares, once per evaluation (govern mode asks for every pool of a tick). */
export function sharesOf(ev: EvalOutput): ScopeShares {
  let s = cache.get(ev);
  if (!s) cache.set(ev, (s = scopeShares(ev)));
  return s;
}
