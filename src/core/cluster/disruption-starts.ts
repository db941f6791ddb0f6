// SPDX-License-Identifier: Apache-2.0
// The disruptions started in a NodePool, for rate budgets (`budget N per D`, rules/README §3.6.1).
// Karpenter keeps no history (KARPENTER.md#disruption-history): a NodeClaim being disrupted
// carries the condition `DisruptionReason=True` from the start of its command until it is gone
// (or the command is rolled back), and then nothing remains. So a start is known from two
// places, read together: the live NodeClaims' `DisruptionReason` conditions (`observed`), and
// kpol's own record on the NodePool, annotation `kpol.dev/disruption-starts`, which kpol writes
// when it starts a command (standalone) or first sees one started (govern mode) and prunes after
// 7 days. Both live in the cluster, so a restarted controller forgets nothing.
import { countStarts, type StartCount } from '../../../rules/budgets.js';
import { MAX_RATE_SECONDS, MAX_RATE_STARTS } from '../../../rules/checks/rate-budgets.js';
import { REASONS, type Reason } from '../../../rules/model.js';
import type { ClusterIndex } from './state.js';
import { LABEL_NODEPOOL, type NodeClaim, type NodePool } from './types.js';

/** The NodePool annotation holding kpol's record of disruption starts (a JSON list, newest first). */
export const DISRUPTION_STARTS_ANNOTATION = 'kpol.dev/disruption-starts';

/** One disruption started: which NodeClaim, for which reason, when (epoch ms, whole seconds). */
export interface DisruptionStart {
  nodeClaim: string;
  reason: Reason;
  atMs: number;
}

/** A pool's starts, or why they cannot be known (then its rate budgets allow nothing: fail closed). */
export type PoolStarts = { starts: DisruptionStart[] } | { error: string };

/**
 * Start instants are kept in whole seconds, rounded up: a start recorded a little late stays in
 * its window a little longer, never shorter (rounding down could let a rate be exceeded by a second).
 */
export const startSecond = (ms: number): number => Math.ceil(ms / 1000) * 1000;

const isReason = (r: unknown): r is Reason => typeof r === 'string' && (REASONS as readonly string[]).includes(r);

/** The record as written on a NodePool; `[]` without the annotation, an error when it cannot be read. */
export function parseStarts(text: string | undefined): PoolStarts {
  if (text === undefined) return { starts: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: 'is not JSON' };
  }
  if (!Array.isArray(value)) return { error: 'is not a list' };
  const starts: DisruptionStart[] = [];
  for (const [i, item] of value.entries()) {
    const e = item as Record<string, unknown> | null;
    const atMs = typeof e?.at === 'string' ? Date.parse(e.at) : NaN;
    if (typeof e?.nodeClaim !== 'string' || !isReason(e.reason) || Number.isNaN(atMs))
      return { error: `item ${i} needs a nodeClaim, a reason (${REASONS.join(', ')}) and an RFC 3339 time "at"` };
    starts.push({ nodeClaim: e.nodeClaim, reason: e.reason, atMs: startSecond(atMs) });
  }
  return { starts };
}

/** The annotation's text for `starts` (already merged and pruned). */
export function formatStarts(starts: readonly DisruptionStart[]): string {
  return JSON.stringify(
    starts.map((s) => ({
      nodeClaim: s.nodeClaim,
      reason: s.reason,
      at: new Date(s.atMs).toISOString().replace('.000Z', 'Z'),
    })),
  );
}

/** A NodeClaim's start as its DisruptionReason condition tells it, if it is being disrupted for a budgeted reason. */
export function observedStart(nc: NodeClaim, nowMs: number): DisruptionStart | undefined {
  const c = nc.status?.conditions?.find((x) => x.type === 'DisruptionReason' && x.status === 'True');
  if (!c || !isReason(c.reason)) return undefined;
  // Without a readable transition time the start is taken as now: it counts until the condition goes.
  const at = c.lastTransitionTime === undefined ? NaN : Date.parse(c.lastTransitionTime);
  return { nodeClaim: nc.metadata.name, reason: c.reason, atMs: startSecond(Number.isNaN(at) ? nowMs : at) };
}

const keyOf = (s: DisruptionStart): string => `${s.nodeClaim}\u0000${s.reason}\u0000${s.atMs}`;

/**
 * `a` and `b` joined (a start seen in both counts once), newest first, without the starts older
 * than 7 days before `nowMs` (no rate window is longer), at most MAX_RATE_STARTS.
 */
export function mergeStarts(
  a: readonly DisruptionStart[],
  b: readonly DisruptionStart[],
  nowMs: number,
): DisruptionStart[] {
  const byKey = new Map<string, DisruptionStart>();
  for (const s of [...a, ...b]) if (s.atMs > nowMs - MAX_RATE_SECONDS * 1000) byKey.set(keyOf(s), s);
  return [...byKey.values()]
    .sort((x, y) => y.atMs - x.atMs || x.nodeClaim.localeCompare(y.nodeClaim))
    .slice(0, MAX_RATE_STARTS);
}

const recorded = new WeakMap<NodePool, PoolStarts>();
/** The record on a NodePool (parsed once per object: stored objects are never changed in place). */
export function recordedStarts(np: NodePool): PoolStarts {
  let r = recorded.get(np);
  if (!r) recorded.set(np, (r = parseStarts(np.metadata.annotations?.[DISRUPTION_STARTS_ANNOTATION])));
  return r;
}

/** Every live NodeClaim's observed start, by its NodePool label. */
export function observedStartsByPool(index: ClusterIndex, nowMs: number): Map<string, DisruptionStart[]> {
  const out = new Map<string, DisruptionStart[]>();
  for (const nc of index.snapshot.nodeClaims) {
    const pool = nc.metadata.labels?.[LABEL_NODEPOOL];
    const s = pool === undefined ? undefined : observedStart(nc, nowMs);
    if (pool === undefined || !s) continue;
    const list = out.get(pool);
    if (list) list.push(s);
    else out.set(pool, [s]);
  }
  return out;
}

/** A pool's starts: its record joined with what its live NodeClaims show. */
export function poolStarts(np: NodePool, observed: readonly DisruptionStart[], nowMs: number): PoolStarts {
  const r = recordedStarts(np);
  if ('error' in r) return { error: `${DISRUPTION_STARTS_ANNOTATION} on NodePool ${np.metadata.name} ${r.error}` };
  return { starts: observed.length ? mergeStarts(r.starts, observed, nowMs) : r.starts };
}

/** The budget arithmetic's view of a pool's starts at `nowMs` (rules/budgets.ts); unknown when unreadable. */
export function startCounter(starts: PoolStarts, nowMs: number): StartCount {
  if ('error' in starts) return () => undefined;
  return (perSeconds, reasons) => countStarts(starts.starts, nowMs, perSeconds, reasons, MAX_RATE_STARTS);
}
