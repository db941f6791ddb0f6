// SPDX-License-Identifier: Apache-2.0
// The report's tables: the most frequent blocked reasons, the NodePools held at 0 and why, and the most
// recent events (grouped).
import { groupEvents } from '../../core/observe/event-groups.js';
import { esc, formatCount, formatUtc } from './html.js';
import type { BlockedCount, HeldCount, Timeline } from '../simulate/timeline.js';

export function blockedTable(blocked: readonly BlockedCount[], top = 15): string {
  if (blocked.length === 0) return '<p class="empty">Nothing was blocked.</p>';
  const rows = [...blocked]
    .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code))
    .slice(0, top)
    .map(
      (b) =>
        `<tr><td><code>${esc(b.code)}</code></td><td class="num">${formatCount(b.count)}</td>` +
        `<td>${esc(b.example)}</td></tr>`,
    );
  const more = blocked.length > top ? `<p class="muted">${blocked.length - top} more codes not shown.</p>` : '';
  return (
    `<table class="blocked"><thead><tr><th>Code</th><th class="num">Node-ticks blocked</th>` +
    `<th>Example message</th></tr></thead><tbody>${rows.join('')}</tbody></table>${more}`
  );
}

/**
 * The `last` most recently seen events, identical ones (type, reason, object, message) on one row with their count and
 * first time.
 */
export function eventsTable(events: Timeline['events'], last = 50): string {
  if (events.length === 0) return '<p class="empty">No events were recorded.</p>';
  const groups = groupEvents(
    events,
    (e) => JSON.stringify([e.type, e.reason, e.object, e.message]),
    (e) => e.at,
  );
  const rows = groups
    .slice(0, last)
    .map(
      ({ latest: e, count, firstAt }) =>
        `<tr><td class="nowrap">${esc(formatUtc(e.at))}</td><td ` +
        `class="num">${formatCount(count)}</td><td class="nowrap">${esc(formatUtc(firstAt))}</td>` +
        `<td>${esc(e.type)}</td><td>${esc(e.reason)}</td><td>${esc(e.object)}</td>` +
        `<td>${esc(e.message)}</td></tr>`,
    );
  const shown =
    groups.length > last
      ? `the ${last} most recently seen of ${formatCount(groups.length)} distinct events`
      : `${formatCount(groups.length)} distinct events`;
  const note =
    groups.length < events.length || groups.length > last
      ? `<p class="muted">${formatCount(events.length)} events recorded: ${shown}, newest first; ` +
        `identical events share a row with their count.</p>`
      : '';
  return (
    `${note}<table class="events"><thead><tr><th>Last seen</th><th class="num">Count</th>` +
    `<th>First seen</th><th>Type</th><th>Reason</th><th>Object</th><th>Message</th></tr>` +
    `</thead><tbody>${rows.join('')}</tbody></table>`
  );
}

const CAUSE_WORDS: Record<HeldCount['cause'], string> = {
  error: 'an error (fails closed)',
  pause: 'a pause',
  rate: 'a rate budget',
  scope: 'a cluster budget',
  budget: 'its budgets',
};

/** The (NodePool, reason) pairs held at 0 the longest, with what held them and its latest words. */
export function heldTable(held: readonly HeldCount[], top = 15): string {
  if (held.length === 0) return '<p class="empty">No NodePool was held at 0.</p>';
  const rows = [...held]
    .sort((a, b) => b.count - a.count || a.nodePool.localeCompare(b.nodePool) || a.reason.localeCompare(b.reason))
    .slice(0, top)
    .map(
      (h) =>
        `<tr><td>${esc(h.nodePool)}</td><td>${esc(h.reason)}</td><td>${esc(CAUSE_WORDS[h.cause])}</td>` +
        `<td class="num">${formatCount(h.count)}</td><td>${esc(h.example)}</td></tr>`,
    );
  const more = held.length > top ? `<p class="muted">${held.length - top} more rows not shown.</p>` : '';
  return (
    `<table class="held"><thead><tr><th>NodePool</th><th>Reason</th><th>Held by</th>` +
    `<th class="num">Ticks</th><th>Latest message</th></tr></thead><tbody>${rows.join('')}</tbody></table>${more}`
  );
}
