// SPDX-License-Identifier: Apache-2.0
// The records an evaluation is made of, from the rule graphs' answers: a node's result with its
// holds, a pool's pauses in force, disrupting counts in a stable order, instants as text.
import { nodeVerdict, type Hold } from '../../../rules/node-verdict.js';
import type { FiredEvent } from '../../../rules/engine.js';
import type { NodeDetails } from '../../../rules/facts.js';
import { KARPENTER_REASONS, REASONS, type PolicySpec, type Reason } from '../../../rules/model.js';
import { pauseMessage, pausesReason, type Pause } from '../facts/pauses.js';
import type { DisruptingByReason } from './disruption-reasons.js';
import type { NodeResult, PauseView, PoolResult } from './output.js';

export function reasonsInScope(policy: PolicySpec): Reason[] {
  return policy.expiration === 'graceful' ? [...KARPENTER_REASONS, 'Expired'] : [...KARPENTER_REASONS];
}

/** A node's result from the events its rules fired and the details their messages name. */
export function nodeResult(
  events: readonly FiredEvent[],
  details: NodeDetails,
  policy: PolicySpec,
  poolName: string | undefined,
): NodeResult {
  const verdict = nodeVerdict(events, details, reasonsInScope(policy));
  return {
    nodePool: poolName ?? '',
    candidate: verdict.reasons.length > 0,
    reasons: verdict.reasons,
    blocked: verdict.blocked,
    ...holdsOf(verdict.holds, policy),
    ...(verdict.scopes.length > 0 && { budgetScopes: verdict.scopes }),
  };
}

/**
 * The pauses in force on a pool, for the why-not: those whose reasons include one the pool
 * rules paused at this instant (the `pause:<reason>` events) and that have not ended.
 */
export function pausedView(
  mine: readonly Pause[],
  events: readonly FiredEvent[],
  nowMs: number,
): Pick<PoolResult, 'paused'> {
  const fired = new Set(events.flatMap((e) => (e.type === 'pause' ? e.params.reasons : [])));
  const views: PauseView[] = mine
    .filter((x) => x.untilMs > nowMs && [...fired].some((r) => pausesReason(x, r)))
    .map((x) => ({
      source: x.source,
      reasons: x.reasons,
      until: x.error ? null : atText(x.untilMs),
      ...(x.by && { by: x.by }),
      ...(x.note && { note: x.note }),
      message: pauseMessage(x),
    }));
  return views.length ? { paused: views } : {};
}

/** Disrupting counts by reason in a stable order (REASONS, then unknown), for stable JSON. */
export function inReasonOrder(by: DisruptingByReason): DisruptingByReason {
  const out: DisruptingByReason = {};
  for (const r of [...REASONS, 'unknown'] as const) if (by[r] !== undefined) out[r] = by[r];
  return out;
}

/** A node's holds, and the reasons Karpenter's node annotation would block beyond them. */
export function holdsOf(holds: readonly Hold[], policy: PolicySpec): Pick<NodeResult, 'holds' | 'overblocks'> {
  if (holds.length === 0) return {};
  const held = new Set(holds.flatMap((h) => h.reasons));
  const overblocks = KARPENTER_REASONS.filter((r) => !held.has(r) && reasonsInScope(policy).includes(r));
  return { holds: [...holds], ...(overblocks.length ? { overblocks } : {}) };
}

export const atText = (nowMs: number): string => new Date(nowMs).toISOString().replace('.000Z', 'Z');
