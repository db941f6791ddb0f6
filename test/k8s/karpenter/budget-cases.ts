// SPDX-License-Identifier: Apache-2.0
// The disruption-budget configurations the agreement test puts side by side on one cluster:
// one NodePool each, with a node count chosen so that percentages round (up) the way the case
// is about. Schedules are daily crons placed relative to the wall clock when the test starts,
// so some windows are open now and some are not, and none opens or closes during the run.

export type Reason = 'Empty' | 'Drifted' | 'Underutilized';
export const REASONS: readonly Reason[] = ['Empty', 'Drifted', 'Underutilized'];

/** What Karpenter prints for "no limit" (math.MaxInt32); kpol says `null`. */
export const UNLIMITED = 2147483647;

export interface BudgetCase {
  /** Short, part of the NodePool name. */
  slug: string;
  /** Initialized nodes the pool gets (one pod per node). */
  nodes: number;
  /** `spec.disruption.budgets`; `undefined` leaves the field out (Karpenter's 10% default). */
  budgets: unknown[] | undefined;
  /**
   * Karpenter's allowance per reason by its documented rules (KARPENTER.md#budgets of the semantics notes), before
   * subtracting disrupting nodes.
   */
  expected: Record<Reason, number>;
}

/** A daily cron that fires at the UTC minute `offsetMinutes` from `now` (negative: in the past). */
export function dailyAt(now: Date, offsetMinutes: number): string {
  const t = new Date(now.getTime() + offsetMinutes * 60_000);
  return `${t.getUTCMinutes()} ${t.getUTCHours()} * * *`;
}

const all = (n: number): Record<Reason, number> => ({ Empty: n, Drifted: n, Underutilized: n });

/**
 * The cases at `now`. The windows: one opened a minute ago and lasts an hour (open for the
 * whole run), one opens in an hour (shut), one opened three minutes ago for one minute (shut
 * again). 33 nodes in all.
 */
export function budgetCases(now: Date): BudgetCase[] {
  const openedAMinuteAgo = dailyAt(now, -1);
  const opensInAnHour = dailyAt(now, 60);
  const closedTwoMinutesAgo = dailyAt(now, -3);
  return [
    { slug: 'count3', nodes: 1, budgets: [{ nodes: '3' }], expected: all(3) },
    { slug: 'count0', nodes: 0, budgets: [{ nodes: '0' }], expected: all(0) },
    { slug: 'pct10of2', nodes: 2, budgets: [{ nodes: '10%' }], expected: all(1) },
    { slug: 'pct50of3', nodes: 3, budgets: [{ nodes: '50%' }], expected: all(2) },
    { slug: 'pct33of5', nodes: 5, budgets: [{ nodes: '33%' }], expected: all(2) },
    { slug: 'pct0', nodes: 1, budgets: [{ nodes: '0%' }], expected: all(0) },
    { slug: 'pct100of2', nodes: 2, budgets: [{ nodes: '100%' }], expected: all(2) },
    { slug: 'pct50of0', nodes: 0, budgets: [{ nodes: '50%' }], expected: all(0) },
    { slug: 'pct1of1', nodes: 1, budgets: [{ nodes: '1%' }], expected: all(1) },
    // No `budgets` field: the CRD defaults it to one 10% budget.
    { slug: 'default', nodes: 2, budgets: undefined, expected: all(1) },
    // An explicit empty list is not defaulted: nothing limits any reason.
    { slug: 'none', nodes: 1, budgets: [], expected: all(UNLIMITED) },
    // A reason no budget names is unlimited; the 10% default is not injected.
    {
      slug: 'drifted0',
      nodes: 1,
      budgets: [{ nodes: '0', reasons: ['Drifted'] }],
      expected: { Empty: UNLIMITED, Drifted: 0, Underutilized: UNLIMITED },
    },
    {
      slug: 'mix',
      nodes: 3,
      budgets: [{ nodes: '20%', reasons: ['Empty', 'Drifted'] }, { nodes: '5' }],
      expected: { Empty: 1, Drifted: 1, Underutilized: 5 },
    },
    {
      slug: 'twopct',
      nodes: 4,
      budgets: [{ nodes: '34%' }, { nodes: '25%', reasons: ['Empty'] }],
      expected: { Empty: 1, Drifted: 2, Underutilized: 2 },
    },
    {
      slug: 'open',
      nodes: 1,
      budgets: [{ nodes: '0', schedule: openedAMinuteAgo, duration: '1h' }, { nodes: '2' }],
      expected: all(0),
    },
    {
      slug: 'openreason',
      nodes: 3,
      budgets: [
        { nodes: '0', reasons: ['Underutilized'], schedule: openedAMinuteAgo, duration: '2h' },
        { nodes: '50%' },
      ],
      expected: { Empty: 2, Drifted: 2, Underutilized: 0 },
    },
    {
      slug: 'upcoming',
      nodes: 2,
      budgets: [{ nodes: '0', schedule: opensInAnHour, duration: '30m' }, { nodes: '40%' }],
      expected: all(1),
    },
    {
      slug: 'closed',
      nodes: 0,
      budgets: [{ nodes: '0', schedule: closedTwoMinutesAgo, duration: '1m' }, { nodes: '4' }],
      expected: all(4),
    },
    // A zero-length window is never open.
    {
      slug: 'dur0m',
      nodes: 0,
      budgets: [{ nodes: '0', schedule: '* * * * *', duration: '0m' }],
      expected: all(UNLIMITED),
    },
    // Open all the time: each window lasts until the next hit.
    { slug: 'hourly1h', nodes: 0, budgets: [{ nodes: '2', schedule: '@hourly', duration: '1h' }], expected: all(2) },
    // February 30th never comes: the schedule library reports no next hit, which counts as open.
    { slug: 'feb30', nodes: 0, budgets: [{ nodes: '1', schedule: '0 0 30 2 *', duration: '1h' }], expected: all(1) },
    // Day-of-week 7 passes the CRD but not the cron parser: the whole pool fails closed,
    // even the reasons the broken budget does not name.
    {
      slug: 'dow7',
      nodes: 1,
      budgets: [{ nodes: '5', schedule: '0 0 * * 7', duration: '1h', reasons: ['Drifted'] }, { nodes: '3' }],
      expected: all(0),
    },
    {
      slug: 'sixfields',
      nodes: 0,
      budgets: [{ nodes: '1', schedule: '0 0 * * * *', duration: '1h' }],
      expected: all(0),
    },
    // v1.15's CRD also takes `Unhealthy` (node repair, feature-gated off here): such a budget
    // limits none of the three reasons.
    {
      slug: 'unhealthy',
      nodes: 0,
      budgets: [
        { nodes: '0', reasons: ['Unhealthy'] },
        { nodes: '2', reasons: ['Empty'] },
      ],
      expected: { Empty: 2, Drifted: UNLIMITED, Underutilized: UNLIMITED },
    },
  ];
}
