// SPDX-License-Identifier: Apache-2.0
// `kpol simulate --report`: one self-contained HTML file (inline CSS and SVG, no scripts, no
// external URLs) that opens anywhere and can be attached to a ticket.
import { disruptionBars } from './bars.js';
import { calendarSection } from './calendar.js';
import { esc, formatMoney } from './html.js';
import { type LineSeries, lineChart } from './line-chart.js';
import { DASHES, PALETTE, REPORT_CSS } from './style.js';
import { summaryHeader } from './summary.js';
import { blockedTable, eventsTable, heldTable } from './tables.js';
import type { Timeline } from '../simulate/timeline.js';

function nodeSeries(t: Timeline): LineSeries[] {
  const pools = [...new Set(t.samples.flatMap((s) => Object.keys(s.nodesByPool)))].sort();
  const total: LineSeries = { name: 'all nodes', colour: '#1a1a1a', points: t.samples.map((s) => [s.at, s.nodes]) };
  if (pools.length <= 1) return [total];
  return [
    total,
    ...pools.map((p, i) => ({
      name: p,
      colour: PALETTE[i % (PALETTE.length - 1)],
      dash: DASHES[(i % (DASHES.length - 1)) + 1],
      points: t.samples.map((s) => [s.at, s.nodesByPool[p] ?? 0] as const),
    })),
  ];
}

const section = (id: string, heading: string, body: string, note = '') =>
  `<section id="${id}"><h2>${esc(heading)}</h2>${note ? `<p class="muted">${note}</p>` : ''}${body}</section>`;

export function renderReport(timeline: Timeline, title: string): string {
  const t = timeline;
  const empty = '<p class="empty">No samples in this timeline.</p>';
  const nodes = t.samples.length
    ? lineChart(nodeSeries(t), {
        label: 'Nodes over time',
        yTitle: 'nodes',
        from: t.from,
        to: t.to,
        yFormat: (v) => String(v),
      })
    : empty;
  const cost = t.samples.length
    ? lineChart(
        [{ name: 'cost per hour (USD)', colour: '#0072B2', points: t.samples.map((s) => [s.at, s.costPerHour]) }],
        {
          label: 'Hourly cost over time',
          yTitle: 'USD per hour',
          from: t.from,
          to: t.to,
          yFormat: (v) => formatMoney(v),
        },
      )
    : empty;
  const body = [
    summaryHeader(t, title),
    section('nodes', 'Nodes over time', nodes),
    section('cost', 'Hourly cost over time', cost, 'Sum of the running instances’ offering prices.'),
    section(
      'disruptions',
      'Disruptions per reason',
      disruptionBars(t.disruptions, t.from, t.to),
      'Nodes disrupted, stacked by reason. Hover a bar for the number of commands.',
    ),
    section(
      'calendar',
      'When each reason may disrupt',
      calendarSection(t.calendar),
      'Local hours of each policy’s time zone, Monday first. Darker cells: the reason was ' +
        'allowed for more of that hour.',
    ),
    section('blocked', 'Top blocked reasons', blockedTable(t.blocked)),
    section(
      'held',
      'NodePools held at 0',
      heldTable(t.held),
      'Ticks in which a NodePool could start no disruption of a reason, and what held it: an error, ' +
        'a pause, a used-up rate budget, a full cluster budget, or its budgets (a window or a 0).',
    ),
    section('events', 'Recent events', eventsTable(t.events)),
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<main>
${body.join('\n')}
</main>
</body>
</html>
`;
}
