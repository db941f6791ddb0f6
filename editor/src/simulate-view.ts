// SPDX-License-Identifier: Apache-2.0
// The "simulate 24 h" result: what the controller would do over the next day with the edited
// policy (the server runs the real runtime): disruptions in order, nodes and cost over time.
import { h, replaceChildren } from './dom.js';

interface DayResult {
  from: number;
  to: number;
  disruptions: {
    at: number;
    method: string;
    reason: string;
    decision: string;
    nodePool: string;
    nodes: string[];
    replacements: string[];
  }[];
  samples: { at: number; nodes: number; costPerHour: number; pendingPods: number }[];
  blocked: { code: string; count: number; example: string }[];
  summary: { disruptionsByReason: Record<string, number>; startCostPerHour: number; endCostPerHour: number };
}

const time = (ms: number) => new Date(ms).toISOString().slice(5, 16).replace('T', ' ');
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);

type Sample = DayResult['samples'][number];

/**
 * A small bar chart with its title, y-axis (0 and the top value, in the series' unit) and an
 * x-axis of UTC times every 6 hours. Each bar carries its instant and values as a tooltip.
 */
function chart(
  series: string,
  title: string,
  r: DayResult,
  value: (s: Sample) => number,
  format: (v: number) => string,
): HTMLElement {
  const values = r.samples.map(value);
  const max = Math.max(0, ...values);
  const top = max > 0 ? max : 1;
  const span = Math.max(1, r.to - r.from);
  const ticks = [0, 6, 12, 18, 24].map((hours) => r.from + hours * 3600_000);
  const tip = (s: Sample) =>
    `${time(s.at)} UTC: ${s.nodes} nodes, $${s.costPerHour.toFixed(2)}/h, ${s.pendingPods} pending pods`;
  return h(
    'figure',
    { class: 'chart', 'data-series': series },
    h('figcaption', {}, title),
    h(
      'div',
      { class: 'grid' },
      h('div', { class: 'y-axis', 'aria-hidden': 'true' }, h('span', {}, format(top)), h('span', {}, format(0))),
      h(
        'div',
        {
          class: `bars ${series}`,
          role: 'img',
          'aria-label':
            `${title}: ${format(values[0] ?? 0)} at the start, ${format(values.at(-1) ?? 0)} at the ` +
            `end, at most ${format(max)}`,
        },
        ...r.samples.map((s, i) =>
          h('span', { style: `height:${Math.round((values[i] / top) * 100)}%`, title: tip(s) }),
        ),
      ),
      h(
        'div',
        { class: 'x-axis' },
        ...ticks.map((t) => h('span', { style: `left:${(((t - r.from) / span) * 100).toFixed(2)}%` }, clock(t))),
      ),
      h('div', { class: 'x-title' }, 'time (UTC), from now'),
    ),
  );
}

export function renderSimulation(el: HTMLElement, raw: Record<string, unknown>): void {
  const r = raw as unknown as DayResult;
  const by =
    Object.entries(r.summary.disruptionsByReason)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || 'none';
  replaceChildren(
    el,
    h(
      'p',
      { class: 'sub' },
      `From ${time(r.from)} UTC for 24 h: disruptions ${by}; cost ` +
        `$${r.summary.startCostPerHour.toFixed(2)}/h → $${r.summary.endCostPerHour.toFixed(2)}/h`,
    ),
    chart(
      'nodes',
      'Nodes over the next 24 h',
      r,
      (s) => s.nodes,
      (v) => `${Math.round(v)} node${Math.round(v) === 1 ? '' : 's'}`,
    ),
    chart(
      'cost',
      'Cost over the next 24 h ($ per hour)',
      r,
      (s) => s.costPerHour,
      (v) => `$${v.toFixed(2)}/h`,
    ),
    r.disruptions.length === 0
      ? h('p', { class: 'empty' }, 'No disruptions in the next 24 h.')
      : h(
          'table',
          { class: 'timeline' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', {}, 'Time (UTC)'),
              h('th', {}, 'Method'),
              h('th', {}, 'Reason'),
              h('th', {}, 'NodePool'),
              h('th', {}, 'Decision'),
              h('th', {}, 'Nodes'),
            ),
          ),
          h(
            'tbody',
            {},
            ...r.disruptions.map((d) =>
              h(
                'tr',
                {},
                h('td', {}, time(d.at)),
                h('td', {}, d.method),
                h('td', {}, d.reason),
                h('td', {}, d.nodePool),
                h('td', {}, d.decision),
                h('td', {}, d.nodes.join(', ')),
              ),
            ),
          ),
        ),
    r.blocked.length
      ? h(
          'p',
          { class: 'sub' },
          `Most frequent why-not: ${r.blocked
            .slice(0, 3)
            .map((b) => `${b.code} (${b.count})`)
            .join(', ')}`,
        )
      : null,
  );
}
