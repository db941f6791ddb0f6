// SPDX-License-Identifier: Apache-2.0
// The status page: NodePools with their allowed disruptions, cluster and selector budgets, pauses
// and rate budgets, every node's candidacy and why-not, recent decisions and events. Plain HTML
// that reloads itself every 5 s through a meta refresh, so it works with scripts disabled and
// under a strict CSP.
import { groupEvents } from '../../core/observe/event-groups.js';
import { esc, formatCount } from '../report/html.js';
import { REPORT_CSS, orderReasons } from '../report/style.js';
import type { StatusEvent, StatusView } from '../../control/runtime/status-source.js';

const STATUS_CSS = `${REPORT_CSS}
.yes{color:#006d2c;font-weight:600}.no{color:#555}
.warn{color:#a63603;font-weight:600}
ul.plain{margin:0;padding-left:18px}
`;

const table = (head: string[], rows: string[], empty: string, cls = '') =>
  rows.length === 0
    ? `<p class="empty">${esc(empty)}</p>`
    : `<table${cls ? ` class="${cls}"` : ''}><thead><tr>${head.join('')}</tr></thead>` +
      `<tbody>${rows.join('')}</tbody></table>`;

const allowedCell = (v: number | null | undefined) =>
  v === undefined ? '<td class="num muted">–</td>' : `<td class="num">${v === null ? 'unlimited' : esc(v)}</td>`;

function pools(view: StatusView): string {
  const names = Object.keys(view.nodePools).sort();
  const reasons = orderReasons(names.flatMap((n) => Object.keys(view.nodePools[n].allowed)));
  const head = [
    '<th>NodePool</th>',
    '<th>Policy</th>',
    '<th class="num">Nodes</th>',
    '<th class="num">Disrupting</th>',
    ...reasons.map((r) => `<th class="num">${esc(r)}</th>`),
  ];
  const rows = names.map((n) => {
    const p = view.nodePools[n];
    // With `per reason` buckets, which reasons the disrupting nodes are disrupted for (each bucket counts its own)
    const by = p.disruptingByReason
      ? ` <small>(${esc(
          Object.entries(p.disruptingByReason)
            .map(([r, c]) => `${r} ${c}`)
            .join(', ') || 'none',
        )})</small>`
      : '';
    const counts = `<td class="num">${esc(p.nodes)}</td><td class="num">${esc(p.disrupting)}${by}</td>`;
    const allowed = reasons.map((r) => allowedCell(p.allowed[r])).join('');
    return `<tr><td>${esc(n)}</td><td><code>${esc(p.policy)}</code></td>${counts}${allowed}</tr>`;
  });
  return table(head, rows, 'No NodePools.', 'pools');
}

/** Cluster and selector budgets: the pools each spans and the room it leaves per reason now. */
function scopes(view: StatusView): string {
  const all = view.scopes ?? [];
  const reasons = orderReasons(all.flatMap((sc) => Object.keys(sc.allowed)));
  const head = [
    '<th>Budget</th>',
    '<th>NodePools</th>',
    '<th class="num">Nodes</th>',
    '<th class="num">Disrupting</th>',
    ...reasons.map((r) => `<th class="num">${esc(r)}</th>`),
  ];
  const rows = all.map((sc) => {
    const budget = `<td><code>${esc(sc.statement)}</code> <small>${esc(sc.at)}</small></td>`;
    const counts = `<td class="num">${esc(sc.nodes)}</td><td class="num">${esc(sc.disrupting)}</td>`;
    const allowed = reasons.map((r) => allowedCell(sc.allowed[r])).join('');
    return `<tr>${budget}<td>${esc(sc.nodePools.join(', '))}</td>${counts}${allowed}</tr>`;
  });
  return table(head, rows, 'No cluster or selector budgets.', 'scopes');
}

/** The pauses (`kpol pause`), rate budgets and fail-closed errors in force, per NodePool. */
function pauses(view: StatusView): string {
  const rows = Object.keys(view.nodePools)
    .sort()
    .flatMap((n) => {
      const p = view.nodePools[n];
      return [
        ...(p.paused ?? []).map((m) => `<tr><td>${esc(n)}</td><td>${esc(m)}</td></tr>`),
        ...(p.rates ?? []).map((m) => `<tr><td>${esc(n)}</td><td>${esc(m)}</td></tr>`),
        ...(p.errors ?? []).map((m) => `<tr><td>${esc(n)}</td><td class="warn">${esc(m)}</td></tr>`),
      ];
    });
  const head = ['<th>NodePool</th>', '<th>Paused, rate-limited or failed closed</th>'];
  return table(head, rows, 'No pauses, rate budgets or errors.', 'pauses');
}

function nodes(view: StatusView): string {
  const sorted = [...view.nodes].sort((a, b) => a.nodePool.localeCompare(b.nodePool) || a.name.localeCompare(b.name));
  const rows = sorted.map((n) => {
    const item = (b: (typeof n.blocked)[number]) => `<li><code>${esc(b.code)}</code> ${esc(b.message)}</li>`;
    const blocked = n.blocked.length ? `<ul class="plain">${n.blocked.map(item).join('')}</ul>` : '';
    return (
      `<tr><td>${esc(n.name)}</td><td>${esc(n.nodePool)}</td><td ` +
      `class="${n.candidate ? 'yes' : 'no'}">${n.candidate ? 'yes' : 'no'}</td>` +
      `<td>${esc(n.reasons.join(', '))}</td><td>${blocked}</td></tr>`
    );
  });
  return table(
    ['<th>Node</th>', '<th>NodePool</th>', '<th>Candidate</th>', '<th>Reasons</th>', '<th>Why not</th>'],
    rows,
    'No nodes.',
    'nodes',
  );
}

function decisions(view: StatusView): string {
  const rows = view.decisions
    .slice(-50)
    .reverse()
    .map(
      (d) =>
        `<tr><td class="nowrap">${esc(d.at)}</td><td>${esc(d.method)}</td><td>${esc(d.reason)}</td>` +
        `<td>${esc(d.decision)}</td><td>${esc(d.nodes.join(', '))}</td></tr>`,
    );
  return table(
    ['<th>Time</th>', '<th>Method</th>', '<th>Reason</th>', '<th>Decision</th>', '<th>Nodes</th>'],
    rows,
    'No decisions yet.',
    'decisions',
  );
}

const objectName = (e: StatusEvent) =>
  `${e.object.kind}/${e.object.namespace ? `${e.object.namespace}/` : ''}${e.object.name}`;

/**
 * Identical events (type, reason, object, message) on one row with their count, first and last time; the 50 most
 * recently seen.
 */
function events(view: StatusView): string {
  const groups = groupEvents(
    view.events,
    (e) => JSON.stringify([e.type, e.reason, objectName(e), e.message]),
    (e) => Date.parse(e.at),
  );
  const rows = groups
    .slice(0, 50)
    .map(
      ({ latest: e, count, firstAt }) =>
        `<tr><td class="nowrap">${esc(e.at)}</td><td class="num">${esc(formatCount(count))}</td>` +
        `<td class="nowrap">${esc(new Date(firstAt).toISOString())}</td><td ` +
        `class="${e.type === 'Warning' ? 'warn' : ''}">${esc(e.type)}</td><td>${esc(e.reason)}</td>` +
        `<td>${esc(objectName(e))}</td><td>${esc(e.message)}</td></tr>`,
    );
  return table(
    [
      '<th>Last seen</th>',
      '<th class="num">Count</th>',
      '<th>First seen</th>',
      '<th>Type</th>',
      '<th>Reason</th>',
      '<th>Object</th>',
      '<th>Message</th>',
    ],
    rows,
    'No events yet.',
    'events',
  );
}

export function renderStatusPage(view: StatusView, title = 'kpol status'): string {
  const speed = view.clockSpeed === 1 ? 'real time' : `clock ×${esc(view.clockSpeed)}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="5">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${STATUS_CSS}</style>
</head>
<body>
<main>
<header><h1>${esc(title)}</h1><p class="sub">As of ${esc(view.at)} (${speed}). Refreshes every 5 s.</p></header>
<section id="nodepools"><h2>NodePools: allowed disruptions by reason</h2>${pools(view)}</section>
<section id="scopes"><h2>Cluster and selector budgets</h2>${scopes(view)}</section>
<section id="pauses"><h2>Pauses (kpol pause), rate budgets and fail-closed pools</h2>${pauses(view)}</section>
<section id="nodes"><h2>Nodes: candidates and why not</h2>${nodes(view)}</section>
<section id="decisions"><h2>Recent decisions</h2>${decisions(view)}</section>
<section id="events"><h2>Recent events</h2>${events(view)}</section>
</main>
</body>
</html>
`;
}
