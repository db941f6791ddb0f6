// SPDX-License-Identifier: Apache-2.0
// Rate budgets in an evaluation (`budget N per D`, rules/README §3.6.1): each governed pool's
// disruption starts (src/core/cluster/disruption-starts.ts) for the budget arithmetic, and how
// much of each active rate budget is used, in words, for `eval` and `explain`.
import { countStarts, nextRateSlot, quantityValue, type StartCount } from '../../../rules/budgets.js';
import { MAX_RATE_STARTS } from '../../../rules/checks/rate-budgets.js';
import { formatDuration } from '../../../rules/duration.js';
import type { FiredEvent } from '../../../rules/rule-events.js';
import type { PolicySpec, Reason } from '../../../rules/model.js';
import {
  observedStartsByPool,
  poolStarts,
  startCounter,
  type DisruptionStart,
  type PoolStarts,
} from '../cluster/disruption-starts.js';
import type { ClusterIndex } from '../cluster/state.js';

/** One active rate budget of a pool at an instant (PoolResult.rates). */
export interface RateUse {
  /** The budget's rule (`budget:b1`). */
  rule: string;
  /** As written, normalised: `budget 2 per 1h for Drifted`. */
  budget: string;
  reasons: Reason[] | null;
  /** The budget's count over the pool's nodes (a percentage rounded up). */
  limit: number;
  /** Starts within the window; null when the record of starts cannot be read. */
  started: number | null;
  /** How many more may start now. */
  left: number;
  /** The oldest start still inside the window (RFC 3339). */
  oldest?: string;
  /** When one more may start, while none may (RFC 3339). */
  next?: string;
  message: string;
}

export const hasRateBudgets = (policy: PolicySpec): boolean => policy.budgets.some((b) => b.perSeconds !== undefined);

const at = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

/** The starts of every pool a policy with rate budgets governs, read once per evaluation. */
export function rateStartsOf(
  index: ClusterIndex,
  governedBy: ReadonlyMap<string, PolicySpec>,
  nowMs: number,
): Map<string, PoolStarts> {
  const out = new Map<string, PoolStarts>();
  const rated = [...governedBy].filter(([, p]) => hasRateBudgets(p));
  if (rated.length === 0) return out;
  const observed = observedStartsByPool(index, nowMs);
  for (const [pool] of rated) {
    const np = index.nodePoolsByName.get(pool);
    if (np) out.set(pool, poolStarts(np, observed.get(pool) ?? [], nowMs));
  }
  return out;
}

/**
 * What the rate budgets read of time and the record: per rated pool and rate budget, the starts
 * in its window. An evaluation may be reused only while this is unchanged: starts leave their
 * windows as time passes, with no object changing, and a start without a readable time is taken
 * as now, so its instant (and the oldest and next the rate use reports) moves with the clock.
 */
export function rateKey(
  starts: ReadonlyMap<string, PoolStarts>,
  governedBy: ReadonlyMap<string, PolicySpec>,
  nowMs: number,
): string {
  let key = '';
  for (const [pool, s] of starts) {
    if ('error' in s) {
      key += `${pool}:!;`;
      continue;
    }
    for (const b of governedBy.get(pool)?.budgets ?? []) {
      if (b.perSeconds === undefined) continue;
      const count = countStarts(s.starts, nowMs, b.perSeconds, b.reasons, MAX_RATE_STARTS);
      key += `${pool}:${count}:${startsIn(s.starts, nowMs - b.perSeconds * 1000, b.reasons)};`;
    }
  }
  return key;
}

const startsIn = (starts: readonly DisruptionStart[], sinceMs: number, reasons: Reason[] | null): string =>
  starts
    .filter((s) => s.atMs > sinceMs && (reasons === null || reasons.includes(s.reason)))
    .map((s) => s.atMs)
    .join(',');

/** The budget arithmetic's counter for a pool (rules/budgets.ts allowanceFor). */
export const counterOf = (starts: PoolStarts | undefined, nowMs: number): StartCount | undefined =>
  starts && startCounter(starts, nowMs);

/** The pool's active rate budgets (their rules fired), used and left, with a why-not message. */
export function rateUses(
  policy: PolicySpec,
  events: readonly FiredEvent[],
  starts: PoolStarts,
  numNodes: number,
  nowMs: number,
): RateUse[] {
  const out: RateUse[] = [];
  for (const e of events) {
    if (e.type !== 'budget' || e.params.per === undefined) continue;
    const b = policy.budgets.find((x) => `budget:${x.id}` === e.rule);
    if (!b || b.perSeconds === undefined) continue;
    const per = formatDuration(b.perSeconds);
    const quantity = b.nodes.kind === 'percent' ? `${b.nodes.value}%` : String(b.nodes.value);
    const budget = `budget ${quantity} per ${per}${b.reasons ? ` for ${b.reasons.join(', ')}` : ''}`;
    const limit = quantityValue(b.nodes, numNodes);
    if ('error' in starts) {
      const message =
        `rate ${budget}: the record of disruption starts cannot be read (${starts.error}), ` + 'so none may start';
      out.push({ rule: e.rule, budget, reasons: b.reasons, limit, started: null, left: 0, message });
      continue;
    }
    out.push(rateUse(e.rule, budget, b.reasons, limit, b.perSeconds, starts.starts, nowMs));
  }
  return out;
}

function rateUse(
  rule: string,
  budget: string,
  reasons: Reason[] | null,
  limit: number,
  perSeconds: number,
  starts: readonly DisruptionStart[],
  nowMs: number,
): RateUse {
  const started = countStarts(starts, nowMs, perSeconds, reasons, MAX_RATE_STARTS);
  const left = Math.max(limit - started, 0);
  const since = nowMs - perSeconds * 1000;
  const inWindow = starts.filter((s) => s.atMs > since && (reasons === null || reasons.includes(s.reason)));
  const oldestMs = inWindow.length ? Math.min(...inWindow.map((s) => s.atMs)) : undefined;
  const nextMs = nextRateSlot(starts, nowMs, perSeconds, reasons, limit);
  const count = Number.isFinite(started) ? String(started) : `more than ${MAX_RATE_STARTS}`;
  const plural = started === 1 ? '' : 's';
  const startedText = `${count} disruption${plural} started in the last ${formatDuration(perSeconds)}`;
  const oldest = oldestMs === undefined ? '' : ` (the oldest at ${at(oldestMs)})`;
  const message =
    left > 0
      ? `rate ${budget}: ${startedText}${oldest}; ${left} more may start`
      : limit === 0
        ? `rate ${budget} allows none`
        : `rate ${budget} used: ${startedText}${oldest}; next at ${nextMs === undefined ? 'unknown' : at(nextMs)}`;
  return {
    rule,
    budget,
    reasons,
    limit,
    started: Number.isFinite(started) ? started : null,
    left,
    ...(oldestMs !== undefined && { oldest: at(oldestMs) }),
    ...(left === 0 && nextMs !== undefined && { next: at(nextMs) }),
    message,
  };
}
