// SPDX-License-Identifier: Apache-2.0
// The week heatmap: for each NodePool the edited policy governs and each reason, 7 days × 24
// local hours (Monday first, in the policy's zone), shaded by the share of the hour in which
// the reason is allowed. Cells carry data attributes so tests can read what is drawn.
import type { CalendarRow } from '../../src/edge/simulate/timeline.js';
import { h, replaceChildren } from './dom.js';

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

function grid(row: CalendarRow): HTMLElement {
  const head = h(
    'tr',
    {},
    h('th', {}, ''),
    ...Array.from({ length: 24 }, (_, hour) =>
      h('th', { class: 'hour' }, hour % 3 === 0 ? String(hour).padStart(2, '0') : ''),
    ),
  );
  const body = DAYS.map((day, d) =>
    h(
      'tr',
      {},
      h('th', {}, day),
      ...Array.from({ length: 24 }, (_, hour) => {
        const share = row.hours[d * 24 + hour];
        const pct = Math.round(share * 100);
        return h('td', {
          class: 'cell',
          'data-day': d,
          'data-hour': hour,
          'data-allowed': share.toFixed(2),
          title:
            `${day} ${String(hour).padStart(2, '0')}:00 ${row.timeZone}: ${row.reason} allowed ${pct}% ` +
            `of the hour`,
          style: `background: rgba(0, 109, 44, ${(0.08 + share * 0.82).toFixed(2)})`,
        });
      }),
    ),
  );
  return h(
    'table',
    { class: 'calendar', 'data-pool': row.nodePool, 'data-reason': row.reason, 'data-zone': row.timeZone },
    h('thead', {}, head),
    h('tbody', {}, ...body),
  );
}

export function renderCalendar(el: HTMLElement, rows: readonly CalendarRow[]): void {
  if (rows.length === 0)
    return replaceChildren(
      el,
      h('p', { class: 'empty' }, 'The edited policy governs no NodePool of the connected cluster.'),
    );
  const sorted = [...rows].sort((a, b) => a.nodePool.localeCompare(b.nodePool) || a.reason.localeCompare(b.reason));
  replaceChildren(
    el,
    ...sorted.map((r) =>
      h('section', { class: 'cal' }, h('h4', {}, `${r.nodePool} · ${r.reason} · ${r.timeZone}`), grid(r)),
    ),
  );
}
