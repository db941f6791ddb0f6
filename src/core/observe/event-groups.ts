// SPDX-License-Identifier: Apache-2.0
// Events that differ only in their time, counted on one row (as `kubectl get events` shows a
// count with first and last seen): a node blocked for a day is one row "×1,440", not the page.
// Shared by the status page and the simulation report.

export interface EventGroup<E> {
  /** The most recent event of the group. */
  latest: E;
  count: number;
  /** Epoch ms of the first and the last event of the group. */
  firstAt: number;
  lastAt: number;
}

/**
 * Groups `events` (oldest first, as recorded) by `key` (type, reason, object and message),
 * newest group first: ordered by each group's last event.
 */
export function groupEvents<E>(events: readonly E[], key: (e: E) => string, at: (e: E) => number): EventGroup<E>[] {
  const groups = new Map<string, EventGroup<E> & { order: number }>();
  events.forEach((e, order) => {
    const k = key(e);
    const t = at(e);
    const g = groups.get(k);
    if (!g) groups.set(k, { latest: e, count: 1, firstAt: t, lastAt: t, order });
    else {
      g.count++;
      g.firstAt = Math.min(g.firstAt, t);
      if (t >= g.lastAt) Object.assign(g, { latest: e, lastAt: t, order });
    }
  });
  return [...groups.values()]
    .sort((a, b) => b.lastAt - a.lastAt || b.order - a.order)
    .map(({ latest, count, firstAt, lastAt }) => ({ latest, count, firstAt, lastAt }));
}
