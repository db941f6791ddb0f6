// SPDX-License-Identifier: Apache-2.0
// The report's header: what was simulated and the headline numbers.
import { esc, formatCount, formatDuration, formatMoney, formatUtc } from './html.js';
import { orderReasons, reasonColour } from './style.js';
import type { Timeline } from '../simulate/timeline.js';

const card = (k: string, v: string, d = '') =>
  `<div class="card"><div class="k">${esc(k)}</div><div ` +
  `class="v">${v}</div>${d ? `<div class="d">${d}</div>` : ''}</div>`;

export function summaryHeader(t: Timeline, title: string): string {
  const { summary } = t;
  const byReason = summary.disruptionsByReason;
  const reasons = orderReasons(Object.keys(byReason));
  const total = reasons.reduce((a, r) => a + (byReason[r] ?? 0), 0);
  const chips = reasons
    .map(
      (r) =>
        `<span class="chip"><span class="swatch" style="background:${reasonColour(r, reasons)}">` +
        `</span>${esc(r)} ${formatCount(byReason[r])}</span>`,
    )
    .join('');
  const delta = summary.endCostPerHour - summary.startCostPerHour;
  const sign = delta >= 0 ? '+' : '−';
  const pct =
    summary.startCostPerHour > 0 ? ` (${sign}${Math.abs((delta / summary.startCostPerHour) * 100).toFixed(1)}%)` : '';
  const cards = [
    card('Period', esc(formatDuration(t.to - t.from)), `${esc(formatUtc(t.from))} → ${esc(formatUtc(t.to))}`),
    card('Step', esc(formatDuration(t.stepMs)), `${formatCount(t.samples.length)} samples`),
    card('Ticks', formatCount(t.ticks)),
    card('Disruptions', formatCount(total), chips ? `<span class="chips">${chips}</span>` : 'none'),
    card(
      'Cost per hour',
      `${esc(formatMoney(summary.startCostPerHour))} → ${esc(formatMoney(summary.endCostPerHour))}`,
      esc(`${sign}${formatMoney(Math.abs(delta))}${pct}`),
    ),
    card('Wall time', esc(formatDuration(summary.wallSeconds * 1000))),
  ];
  return (
    `<header><h1>${esc(title)}</h1><p class="sub">Simulated ${esc(formatUtc(t.from))} ` +
    `to ${esc(formatUtc(t.to))}, every ${esc(formatDuration(t.stepMs))}.</p><div ` +
    `class="cards">${cards.join('')}</div></header>`
  );
}
