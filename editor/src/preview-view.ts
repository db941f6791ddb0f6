// SPDX-License-Identifier: Apache-2.0
// The "now" preview: allowed disruptions per NodePool and reason (cluster budgets folded in) with
// what lowers them, then every node with its candidacy and, when blocked, why — as the evaluator
// answered for the edited text.
import type { Preview } from './analysis.js';
import { h, replaceChildren } from './dom.js';

const REASONS = ['Empty', 'Drifted', 'Underutilized', 'Expired'] as const;
const show = (v: number | null | undefined) => (v === null ? '∞' : v === undefined ? '–' : String(v));

export function renderNow(el: HTMLElement, p: Preview): void {
  const pools = Object.entries(p.nodePools).sort(([a], [b]) => a.localeCompare(b));
  const poolTable = h(
    'table',
    { class: 'pools' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', {}, 'NodePool'),
        h('th', {}, 'Policy'),
        h('th', { class: 'num' }, 'Nodes'),
        ...REASONS.map((r) => h('th', { class: 'num' }, r)),
      ),
    ),
    h(
      'tbody',
      {},
      ...pools.map(([name, r]) =>
        h(
          'tr',
          { 'data-pool': name, class: p.policies.includes(r.policy) ? 'edited' : undefined },
          h('td', {}, name),
          h('td', {}, r.policy),
          h('td', { class: 'num' }, r.nodes),
          ...REASONS.map((reason) =>
            h('td', { class: 'num', 'data-reason': reason }, show(p.now[name]?.allowed[reason])),
          ),
        ),
      ),
    ),
  );
  const nodes = Object.entries(p.nodes).sort(
    ([a, x], [b, y]) => x.nodePool.localeCompare(y.nodePool) || a.localeCompare(b),
  );
  const nodeTable =
    nodes.length === 0
      ? h('p', { class: 'empty' }, 'No nodes yet.')
      : h(
          'table',
          { class: 'nodes' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', {}, 'Node'),
              h('th', {}, 'NodePool'),
              h('th', {}, 'Candidate for'),
              h('th', {}, 'Why not'),
            ),
          ),
          h(
            'tbody',
            {},
            ...nodes.map(([name, n]) =>
              h(
                'tr',
                { 'data-node': name },
                h('td', {}, name),
                h('td', {}, n.nodePool),
                h('td', { class: n.candidate ? 'yes' : 'no' }, n.reasons.join(', ') || 'no'),
                h('td', {}, ...n.blocked.map((b) => h('div', {}, h('code', {}, b.code), ' ', b.message))),
              ),
            ),
          ),
        );
  const governsNone = !pools.some(([, r]) => p.policies.includes(r.policy));
  replaceChildren(
    el,
    h(
      'p',
      { class: 'sub' },
      `As of ${new Date(p.at).toISOString()} on the connected cluster${p.stale ? ` — ${p.stale}` : ''}`,
    ),
    governsNone
      ? h(
          'p',
          { class: 'empty', 'data-governs': 'none' },
          'The edited policy governs no NodePool of the connected cluster: the table shows the others.',
        )
      : null,
    h('h3', {}, 'Allowed disruptions now'),
    poolTable,
    notesList(p),
    h('h3', {}, 'Candidates and why not'),
    nodeTable,
  );
}

/** Why the numbers are what they are: each note once, with the NodePools it concerns. */
function notesList(p: Preview): HTMLElement | null {
  const pools = new Map<string, string[]>();
  for (const [name, row] of Object.entries(p.now).sort(([a], [b]) => a.localeCompare(b)))
    for (const note of row.notes) pools.set(note, [...(pools.get(note) ?? []), name]);
  if (pools.size === 0) return null;
  return h(
    'ul',
    { class: 'notes' },
    ...[...pools].map(([note, names]) =>
      h('li', { 'data-pools': names.join(',') }, h('b', {}, names.join(', ')), ': ', note),
    ),
  );
}
