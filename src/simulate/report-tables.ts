// SPDX-License-Identifier: Apache-2.0
// The report's tables: the most frequent blocked reasons and the most recent events.
import { esc, formatCount, formatUtc } from './report-html.js';
import type { BlockedCount, Timeline } from './timeline.js';

export function blockedTable(blocked: readonly BlockedCount[], top = 15): string {
  if (blocked.length === 0) return '<p class="empty">Nothing was blocked.</p>';
  const rows = [...blocked]
    .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code))
    .slice(0, top)
    .map((b) => `<tr><td><code>${esc(b.code)}</code></td><td class="num">${formatCount(b.count)}</td><td>${esc(b.example)}</td></tr>`);
  const more = blocked.length > top ? `<p class="muted">${blocked.length - top} more codes not shown.</p>` : '';
  return `<table class="blocked"><thead><tr><th>Code</th><th class="num">Node-ticks blocked</th><th>Example message</th></tr></thead><tbody>${rows.join('')}</tbody></table>${more}`;
}

export function eventsTable(events: Timeline['events'], last = 50): string {
  if (events.length === 0) return '<p class="empty">No events were recorded.</p>';
  const rows = events
    .slice(-last)
    .reverse()
    .map((e) => `<tr><td class="nowrap">${esc(formatUtc(e.at))}</td><td>${esc(e.type)}</td><td>${esc(e.reason)}</td><td>${esc(e.object)}</td><td>${esc(e.message)}</td></tr>`);
  const note = events.length > last ? `<p class="muted">The last ${last} of ${formatCount(events.length)} events, newest first.</p>` : '';
  return `${note}<table class="events"><thead><tr><th>Time</th><th>Type</th><th>Reason</th><th>Object</th><th>Message</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}
