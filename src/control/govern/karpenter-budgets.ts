// SPDX-License-Identifier: Apache-2.0
// What govern mode writes into a NodePool's spec.disruption.budgets: the allowance kpol's pool
// rules give now, per reason, tightened at each whole minute up to the renewal instant where the
// policy tightens (a window closing, a freeze starting), and a deny budget from the renewal
// instant on. Karpenter takes the minimum of its active budgets (KARPENTER.md#budget-reasons), so:
// while kpol runs it rewrites these before the deny budget starts; when kpol stops, Karpenter
// keeps the allowance until the renewal instant and blocks from then on (fail closed).
import { allowanceFor, type Allowance } from '../../../rules/budgets.js';
import type { FiredEvent } from '../../../rules/engine.js';
import type { StartCount } from '../../../rules/budgets.js';
import { nodesText } from '../../../rules/karpenter-export.js';
import { countOf, KARPENTER_REASONS } from '../../../rules/model.js';
import type { KarpenterBudget } from '../../core/cluster/types.js';
import { bucketCount, type DisruptingByReason } from '../../core/eval/disruption-reasons.js';

/**
 * The pool's disrupting nodes now, for a policy with `per reason` buckets. Karpenter subtracts one
 * shared count from every budget (KARPENTER.md#budget-counting step 5), so where a bucket binds
 * kpol writes the count `allowed + disrupting`: Karpenter's own `value − disrupting` then yields
 * exactly the bucket's allowance, i.e. the bucket raised by the nodes disrupting for other reasons.
 */
export interface BucketCounts {
  disrupting: number;
  byReason: DisruptingByReason;
}

type KarpenterReason = (typeof KARPENTER_REASONS)[number];

const MINUTE_MS = 60_000;

/**
 * How long a dated budget stays active once its minute comes. A yearly cron is active for
 * `[hit, hit + duration)`, and last year's hit must not reach into now: 8700 h (362.5 days) stays
 * clear of a year by more than any renewal lease, so the budget is inactive until its minute and
 * active for almost a year after it — far longer than any outage kpol is meant to outlive.
 */
export const DATED_BUDGET_DURATION = '8700h';

/** The first whole minute (UTC) at or after `ms`. */
export const ceilMinute = (ms: number): number => Math.ceil(ms / MINUTE_MS) * MINUTE_MS;

/** A cron that fires once a year at `ms` (a whole minute, UTC): robfig's five fields. */
export function yearlyCron(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCMinutes()} ${d.getUTCHours()} ${d.getUTCDate()} ${d.getUTCMonth() + 1} *`;
}

/**
 * @param poolEventsAt the policy's pool-rule events at an instant (its windows and freezes then)
 * @param nowMs the instant of the evaluation
 * @param numNodes the pool's node count (decides which budget binds when counts and percents mix)
 * @param failClosedAtMs a whole minute after now: from then on Karpenter blocks until kpol rewrites
 * @param counts the disrupting nodes by reason, only when the policy has `per reason` buckets
 * @param started the pool's disruption starts now, for rate budgets: Karpenter holds only a
 * concurrency cap, so a rate budget becomes the count it leaves now (`N − started`), rewritten as
 * starts happen. Karpenter subtracts its disrupting nodes from that again, which only blocks more.
 */
export async function governedBudgets(
  poolEventsAt: (ms: number) => Promise<readonly FiredEvent[]>,
  nowMs: number,
  numNodes: number,
  failClosedAtMs: number,
  counts?: BucketCounts,
  started?: StartCount,
): Promise<KarpenterBudget[]> {
  const out: KarpenterBudget[] = [];
  const add = (nodes: string, reason: KarpenterReason, schedule?: string) => {
    // One entry per distinct (nodes, schedule): the reasons of equal entries are joined.
    const same = out.find((b) => b.nodes === nodes && b.schedule === schedule);
    if (same) same.reasons!.push(reason);
    else out.push({ nodes, reasons: [reason], ...(schedule && { schedule, duration: DATED_BUDGET_DURATION }) });
  };
  const now = await poolEventsAt(nowMs);
  const later: Array<[number, readonly FiredEvent[]]> = [];
  for (let m = ceilMinute(nowMs + 1); m < failClosedAtMs; m += MINUTE_MS) later.push([m, await poolEventsAt(m)]);
  // Without buckets Karpenter's subtraction is kpol's: which budget binds does not depend on the count.
  const d = counts?.disrupting ?? 0;
  const at = (events: readonly FiredEvent[], reason: KarpenterReason) =>
    allowanceFor(events, reason, {
      nodes: numNodes,
      disrupting: d,
      disruptingFor: counts ? bucketCount(counts.byReason, reason) : d,
      started,
    });
  /** What to write for an allowance, and the value Karpenter subtracts from. */
  const written = (a: Allowance): { nodes: string; value: number } | undefined => {
    if (!a.quantity) return undefined;
    if (!a.bucket) return { nodes: nodesText(a.quantity), value: countOf(a.budget) };
    const value = (a.allowed ?? 0) + d;
    return { nodes: String(value), value };
  };
  for (const reason of KARPENTER_REASONS) {
    const w = written(at(now, reason));
    if (w) add(w.nodes, reason);
    let floor = w?.value ?? countOf(null);
    for (const [m, events] of later) {
      const b = written(at(events, reason));
      if (b && b.value < floor) {
        add(b.nodes, reason, yearlyCron(m));
        floor = b.value;
      }
    }
  }
  out.push({ nodes: '0', schedule: yearlyCron(failClosedAtMs), duration: DATED_BUDGET_DURATION });
  return out;
}
