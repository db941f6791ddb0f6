// SPDX-License-Identifier: Apache-2.0
// The "simulate 24 h" result: what the controller would do over the next day with the edited
// policy (the server runs the real runtime): disruptions in order, nodes and cost over time.
import { h, replaceChildren } from './dom.js';

interface DayResult {
  from: number;
  disruptions: { at: number; method: string; reason: string; decision: string; nodePool: string; nodes: string[]; replacements: string[] }[];
  samples: { at: number; nodes: number; costPerHour: number }[];
  blocked: { code: string; count: number; example: string }[];
  summary: { disruptionsByReason: Record<string, number>; startCostPerHour: number; endCostPerHour: number };
}

const time = (ms: number) => new Date(ms).toISOString().slice(5, 16).replace('T', ' ');

function bars(samples: DayResult['samples']): HTMLElement {
  const max = Math.max(1, ...samples.map((s) => s.nodes));
  return h('div', { class: 'bars', title: 'nodes over the day' }, ...samples.map((s) => h('span', { style: `height:${Math.round((s.nodes / max) * 100)}%`, title: `${time(s.at)}: ${s.nodes} nodes, $${s.costPerHour.toFixed(2)}/h` })));
}

export function renderSimulation(el: HTMLElement, raw: Record<string, unknown>): void {
  const r = raw as unknown as DayResult;
  const by = Object.entries(r.summary.disruptionsByReason).map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
  replaceChildren(el,
    h('p', { class: 'sub' }, `From ${time(r.from)} UTC for 24 h: disruptions ${by}; cost $${r.summary.startCostPerHour.toFixed(2)}/h → $${r.summary.endCostPerHour.toFixed(2)}/h`),
    bars(r.samples),
    r.disruptions.length === 0 ? h('p', { class: 'empty' }, 'No disruptions in the next 24 h.') : h('table', { class: 'timeline' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Time (UTC)'), h('th', {}, 'Method'), h('th', {}, 'Reason'), h('th', {}, 'NodePool'), h('th', {}, 'Decision'), h('th', {}, 'Nodes'))),
      h('tbody', {}, ...r.disruptions.map((d) => h('tr', {}, h('td', {}, time(d.at)), h('td', {}, d.method), h('td', {}, d.reason), h('td', {}, d.nodePool), h('td', {}, d.decision), h('td', {}, d.nodes.join(', ')))))),
    r.blocked.length ? h('p', { class: 'sub' }, `Most frequent why-not: ${r.blocked.slice(0, 3).map((b) => `${b.code} (${b.count})`).join(', ')}`) : null);
}
