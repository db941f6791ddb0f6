// SPDX-License-Identifier: Apache-2.0
// A time-series line chart as inline SVG: UTC time axis, a y axis from zero, grid lines and
// an HTML legend. Values are drawn as steps because samples hold until the next sample.
import { linear, niceTicks, round1, timeTickLabel, timeTicks } from './axes.js';
import { esc } from './html.js';

export interface LineSeries {
  name: string;
  colour: string;
  dash?: string;
  points: readonly (readonly [number, number])[]; // [epoch ms, value], ascending time
}

export interface LineChartOptions {
  label: string; // accessible name of the chart
  yTitle: string;
  from: number;
  to: number;
  yFormat?: (v: number) => string;
  width?: number;
  height?: number;
}

const M = { left: 64, right: 20, top: 14, bottom: 44 };

/** Keeps the first, lowest, highest and last point of each pixel column, so peaks survive. */
export function decimate(
  points: readonly (readonly [number, number])[],
  x: (t: number) => number,
): (readonly [number, number])[] {
  const out: (readonly [number, number])[] = [];
  let col: (readonly [number, number])[] = [];
  const flush = () => {
    if (col.length === 0) return;
    const lo = col.reduce((a, b) => (b[1] < a[1] ? b : a));
    const hi = col.reduce((a, b) => (b[1] > a[1] ? b : a));
    const keep = [col[0], lo, hi, col[col.length - 1]].sort((a, b) => a[0] - b[0]);
    for (const p of keep) if (out[out.length - 1] !== p) out.push(p);
    col = [];
  };
  let current = NaN;
  for (const p of points) {
    const c = Math.round(x(p[0]));
    if (c !== current) flush();
    current = c;
    col.push(p);
  }
  flush();
  return out;
}

function stepPath(
  points: readonly (readonly [number, number])[],
  x: (t: number) => number,
  y: (v: number) => number,
  xEnd: number,
): string {
  if (points.length === 0) return '';
  let d = `M${round1(x(points[0][0]))} ${round1(y(points[0][1]))}`;
  for (let i = 1; i < points.length; i++) d += `H${round1(x(points[i][0]))}V${round1(y(points[i][1]))}`;
  return `${d}H${round1(xEnd)}`;
}

export function lineChart(series: readonly LineSeries[], o: LineChartOptions): string {
  const width = o.width ?? 1152;
  const height = o.height ?? 280;
  const fmt = o.yFormat ?? ((v: number) => String(v));
  // A loop, not Math.max(...points): long runs exceed the engine's argument limit.
  let max = 0;
  for (const s of series) for (const p of s.points) if (p[1] > max) max = p[1];
  const yTicks = niceTicks(0, max > 0 ? max : 1, 5);
  const x = linear(o.from, o.to, M.left, width - M.right);
  const y = linear(0, yTicks[yTicks.length - 1], height - M.bottom, M.top);
  const { step, ticks } = timeTicks(o.from, o.to, 9);
  const parts: string[] = [];
  for (const v of yTicks) {
    const py = round1(y(v));
    parts.push(`<line x1="${M.left}" x2="${width - M.right}" y1="${py}" y2="${py}" stroke="#e3e3e3" />`);
    parts.push(`<text x="${M.left - 8}" y="${py + 4}" text-anchor="end">${esc(fmt(v))}</text>`);
  }
  for (const t of ticks) {
    const px = round1(x(t));
    parts.push(`<line x1="${px}" x2="${px}" y1="${height - M.bottom}" y2="${height - M.bottom + 5}" stroke="#888" />`);
    // A label centred on a tick at the right edge would be clipped by the viewBox.
    const anchor = px > width - M.right - 40 ? 'end' : 'middle';
    parts.push(
      `<text x="${px}" y="${height - M.bottom + 18}" text-anchor="${anchor}">${esc(timeTickLabel(t, step))}</text>`,
    );
  }
  parts.push(
    `<line x1="${M.left}" x2="${width - M.right}" y1="${height - M.bottom}" y2="${height - M.bottom}" stroke="#888" />`,
  );
  parts.push(`<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${height - M.bottom}" stroke="#888" />`);
  parts.push(
    `<text class="axis-title" x="${(M.left + width - M.right) / 2}" y="${height - 6}" ` +
      `text-anchor="middle">time (UTC)</text>`,
  );
  parts.push(
    `<text class="axis-title" transform="translate(14 ${(M.top + height - M.bottom) / 2}) ` +
      `rotate(-90)" text-anchor="middle">${esc(o.yTitle)}</text>`,
  );
  for (const s of series) {
    const d = stepPath(decimate(s.points, x), x, y, x(o.to));
    if (!d) continue;
    const dash = s.dash ? ` stroke-dasharray="${s.dash}"` : '';
    parts.push(
      `<path d="${d}" fill="none" stroke="${s.colour}" stroke-width="2"${dash}><title>${esc(s.name)}</title></path>`,
    );
  }
  const svg =
    `<svg role="img" aria-label="${esc(o.label)}" viewBox="0 0 ${width} ${height}" ` +
    `width="${width}" height="${height}">${parts.join('')}</svg>`;
  const legend = series
    .map(
      (s) =>
        `<li><span class="line-swatch" ` +
        `style="border-top:3px ${s.dash ? 'dashed' : 'solid'} ${s.colour}">` +
        `</span>${esc(s.name)}</li>`,
    )
    .join('');
  return `${svg}<ul class="legend">${legend}</ul>`;
}
