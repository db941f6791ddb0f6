// SPDX-License-Identifier: Apache-2.0
// The weekly calendar heatmap: one 7 × 24 grid per NodePool and reason, Monday first, in the
// local hours of the policy's time zone; darker means the reason was allowed for more of that
// hour. Each cell carries its weekday, hour and fraction as data attributes and a tooltip.
import { esc } from './html.js';
import { heatColour, reasonRank } from './style.js';
import type { CalendarRow } from '../simulate/timeline.js';

export const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;
const CELL = 19;
const GAP = 2;
const LEFT = 38;
const TOP = 20;

const hh = (h: number) => String(h).padStart(2, '0');

function heatmap(row: CalendarRow): string {
  const width = LEFT + 24 * (CELL + GAP);
  const height = TOP + 7 * (CELL + GAP);
  const parts: string[] = [];
  for (let h = 0; h < 24; h += 3)
    parts.push(`<text x="${LEFT + h * (CELL + GAP) + CELL / 2}" y="13" text-anchor="middle">${hh(h)}</text>`);
  WEEKDAYS.forEach((d, day) => {
    parts.push(`<text x="${LEFT - 6}" y="${TOP + day * (CELL + GAP) + CELL / 2 + 4}" text-anchor="end">${d}</text>`);
    for (let h = 0; h < 24; h++) {
      const f = row.hours[day * 24 + h] ?? 0;
      const pct = Math.round(f * 100);
      parts.push(
        `<rect class="cell" data-day="${day}" data-hour="${h}" ` +
          `data-allowed="${Number(f.toFixed(4))}" x="${LEFT + h * (CELL + GAP)}" ` +
          `y="${TOP + day * (CELL + GAP)}" width="${CELL}" height="${CELL}" rx="2" ` +
          `fill="${heatColour(f)}">` +
          `<title>${d} ${hh(h)}:00–${hh((h + 1) % 24)}:00 ${esc(row.timeZone)}: allowed ${pct}% of ` +
          `the hour</title></rect>`,
      );
    }
  });
  const label = `${row.nodePool} ${row.reason}: hours allowed per weekday, ${row.timeZone}`;
  return (
    `<svg role="img" aria-label="${esc(label)}" viewBox="0 0 ${width} ${height}" ` +
    `width="${width}" height="${height}">${parts.join('')}</svg>`
  );
}

function scale(): string {
  const stops = [0, 0.25, 0.5, 0.75, 1];
  const items = stops.map(
    (f) =>
      `<li><span class="swatch" style="background:${heatColour(f)}"></span>${f === 0 ? 'never' : `${f * 100}%`}</li>`,
  );
  return `<ul class="legend" aria-label="share of the hour allowed">${items.join('')}</ul>`;
}

export function calendarSection(rows: readonly CalendarRow[]): string {
  if (rows.length === 0) return '<p class="empty">No calendar data in this timeline.</p>';
  const sorted = [...rows].sort(
    (a, b) =>
      a.nodePool.localeCompare(b.nodePool) ||
      reasonRank(a.reason) - reasonRank(b.reason) ||
      a.reason.localeCompare(b.reason),
  );
  const figures = sorted.map(
    (r) =>
      `<figure class="calendar" data-nodepool="${esc(r.nodePool)}" ` +
      `data-reason="${esc(r.reason)}" data-zone="${esc(r.timeZone)}"><h3>${esc(r.nodePool)} ` +
      `· ${esc(r.reason)} <span class="muted">(${esc(r.timeZone)})</span>` +
      `</h3>${heatmap(r)}</figure>`,
  );
  return `${scale()}<div class="heatmaps">${figures.join('')}</div>`;
}
