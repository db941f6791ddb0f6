// SPDX-License-Identifier: Apache-2.0
// The policy's own words for its compiled rules and window facts, so `explain` can say
// `budget 20% for Empty, Drifted (business-hours.kpol:16)` where the graph says `budget:b0`:
// a .kpol statement's text and file:line, or the NodePool field a Karpenter budget came from.
import type { Range } from '../../../grammar/ast.js';
import { formatDuration } from '../../../rules/duration.js';
import type { BudgetSpec, PolicySpec, Quantity } from '../../../rules/model.js';

/** A statement's text (whitespace collapsed, long ones cut) and its file:line. */
function quote(spec: PolicySpec, source: Range | undefined, texts: ReadonlyMap<string, string>): string | undefined {
  if (!source) return undefined;
  const where = `${spec.file ?? spec.name}:${source.start.line + 1}`;
  const text =
    spec.file === undefined
      ? undefined
      : texts.get(spec.file)?.slice(source.start.offset, source.end.offset).replace(/\s+/g, ' ').trim();
  if (!text) return where;
  return `${text.length > 160 ? `${text.slice(0, 159)}…` : text} (${where})`;
}

const quantity = (q: Quantity) => (q.kind === 'percent' ? `${q.value}%` : String(q.value));

/** A budget lowered from a NodePool's spec.disruption.budgets[i] (its id is `b<i>`), in the NodePool's terms. */
function karpenterBudget(spec: PolicySpec, b: BudgetSpec): string {
  const pool =
    spec.target.kind === 'names' && spec.target.names.length === 1 ? `NodePool ${spec.target.names[0]} ` : '';
  const parts = [`nodes: ${quantity(b.nodes)}`];
  if (b.reasons) parts.push(`reasons: [${b.reasons.join(', ')}]`);
  if (b.window) parts.push(`schedule: "${b.window.cron}"`, `duration: ${formatDuration(b.window.durationSeconds)}`);
  return `${pool}spec.disruption.budgets[${b.id.replace(/^b/, '')}] {${parts.join(', ')}}`;
}

/**
 * Labels by rule name (`budget:b0`, `budget:b0:closed`, `freeze:f0`, `maintenance:<name>`)
 * and by window fact (`window:b2`, `window:w:<name>#0`). `texts` maps policy file names to
 * their text; without a file's text a .kpol statement is named by file:line only.
 */
export function statementLabels(spec: PolicySpec, texts: ReadonlyMap<string, string> = new Map()): Map<string, string> {
  const out = new Map<string, string>();
  for (const b of spec.budgets) {
    const label =
      quote(spec, b.source, texts) ?? (spec.origin === 'karpenter' ? karpenterBudget(spec, b) : `budget ${b.id}`);
    out.set(`budget:${b.id}`, label);
    out.set(`budget:${b.id}:closed`, `${label}, window closed`);
    if (b.window) out.set(`window:${b.id}`, label);
  }
  for (const b of spec.scopedBudgets ?? []) {
    const label = quote(spec, b.source, texts) ?? `${b.statement} (${b.at})`;
    out.set(`scope:${b.id}`, label);
    out.set(`in-scope:${b.id}`, label);
    if (b.window) out.set(`window:${b.id}`, label);
  }
  for (const f of spec.freezes) out.set(`freeze:${f.id}`, quote(spec, f.source, texts) ?? `freeze ${f.name ?? f.id}`);
  for (const w of spec.maintenanceWindows) {
    const label = quote(spec, w.source, texts) ?? `window ${w.name}`;
    out.set(`maintenance:${w.name}`, label);
    w.windows.forEach((_, i) =>
      out.set(`window:${w.id}#${i}`, w.windows.length > 1 ? `${label}, window ${i + 1}` : label),
    );
  }
  return out;
}
