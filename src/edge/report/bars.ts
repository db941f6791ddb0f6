// SPDX-License-Identifier: Apache-2.0
// Disruptions per UTC day (per week for long runs) as bars stacked by reason. Bars count
// nodes disrupted, because one command can disrupt several nodes; each segment's tooltip
// also gives the number of commands.
import { linear, niceTicks, round1, timeTickLabel } from './axes.js';
import { esc } from './html.js';
import { orderReasons, reasonColour } from './style.js';
import type { DisruptionRecord } from '../simulate/timeline.js';

const DAY = 86_400_000;
const MONDAY_OFFSET = 4 * DAY; // the epoch was a Thursday
const M = { left: 64, right: 20, top: 14, bottom: 44 };

interface Bucket {
  start: number;
  nodes: Map<string, number>;
  commands: Map<string, number>;
}

export function disruptionBars(
  records: readonly DisruptionRecord[],
  from: number,
  to: number,
  width = 1152,
  height = 280,
): string {
  if (records.length === 0) return '<p class="empty">No disruptions in this period.</p>';
  const days = Math.ceil(to / DAY) - Math.floor(from / DAY);
  const size = days <= 92 ? DAY : 7 * DAY;
  const offset = size === DAY ? 0 : MONDAY_OFFSET;
  const first = Math.floor((from - offset) / size) * size + offset;
  const count = Math.max(1, Math.ceil((to - first) / size));
  const buckets: Bucket[] = Array.from({ length: count }, (_, i) => ({
    start: first + i * size,
    nodes: new Map(),
    commands: new Map(),
  }));
  for (const r of records) {
    const b = buckets[Math.min(count - 1, Math.max(0, Math.floor((r.at - first) / size)))];
    b.nodes.set(r.reason, (b.nodes.get(r.reason) ?? 0) + Math.max(1, r.nodes.length));
    b.commands.set(r.reason, (b.commands.get(r.reason) ?? 0) + 1);
  }
  const reasons = orderReasons(records.map((r) => r.reason));
  const max = buckets.reduce(
    (m, b) =>
      Math.max(
        m,
        [...b.nodes.values()].reduce((a, c) => a + c, 0),
      ),
    0,
  );
  const yTicks = niceTicks(0, max, 5).filter((v) => Number.isInteger(v));
  const y = linear(0, yTicks[yTicks.length - 1], height - M.bottom, M.top);
  const slot = (width - M.left - M.right) / count;
  const barW = Math.max(1, slot * 0.78);
  const labelEvery = Math.ceil(64 / slot);
  const parts: string[] = [];
  for (const v of yTicks) {
    const py = round1(y(v));
    parts.push(`<line x1="${M.left}" x2="${width - M.right}" y1="${py}" y2="${py}" stroke="#e3e3e3" />`);
    parts.push(`<text x="${M.left - 8}" y="${py + 4}" text-anchor="end">${v}</text>`);
  }
  buckets.forEach((b, i) => {
    const x0 = M.left + i * slot + (slot - barW) / 2;
    let base = 0;
    for (const reason of reasons) {
      const n = b.nodes.get(reason) ?? 0;
      if (n === 0) continue;
      const top = y(base + n);
      const label =
        `${timeTickLabel(b.start, size)}: ${reason} ${n} node${n === 1 ? '' : 's'} ` +
        `in ${b.commands.get(reason)} command${b.commands.get(reason) === 1 ? '' : 's'}`;
      parts.push(
        `<rect class="bar" data-reason="${esc(reason)}" data-nodes="${n}" x="${round1(x0)}" ` +
          `y="${round1(top)}" width="${round1(barW)}" height="${round1(y(base) - top)}" ` +
          `fill="${reasonColour(reason, reasons)}"><title>${esc(label)}</title></rect>`,
      );
      base += n;
    }
    if (i % labelEvery === 0) {
      parts.push(
        `<text x="${round1(M.left + (i + 0.5) * slot)}" y="${height - M.bottom + 18}" ` +
          `text-anchor="middle">${esc(timeTickLabel(b.start, DAY))}</text>`,
      );
    }
  });
  parts.push(
    `<line x1="${M.left}" x2="${width - M.right}" y1="${height - M.bottom}" y2="${height - M.bottom}" stroke="#888" />`,
  );
  parts.push(`<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${height - M.bottom}" stroke="#888" />`);
  parts.push(
    `<text class="axis-title" x="${(M.left + width - M.right) / 2}" y="${height - 6}" ` +
      `text-anchor="middle">${size === DAY ? 'day' : 'week from Monday'} (UTC)</text>`,
  );
  parts.push(
    `<text class="axis-title" transform="translate(14 ${(M.top + height - M.bottom) / 2}) ` +
      `rotate(-90)" text-anchor="middle">nodes disrupted</text>`,
  );
  const svg =
    `<svg role="img" aria-label="Nodes disrupted per ${size === DAY ? 'day' : 'week'}, stacked ` +
    `by reason" viewBox="0 0 ${width} ${height}" width="${width}" ` +
    `height="${height}">${parts.join('')}</svg>`;
  const legend = reasons
    .map((r) => `<li><span class="swatch" style="background:${reasonColour(r, reasons)}"></span>${esc(r)}</li>`)
    .join('');
  return `${svg}<ul class="legend">${legend}</ul>`;
}
