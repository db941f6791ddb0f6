// SPDX-License-Identifier: Apache-2.0
// Canonical one-line text of declarations, policy headers and statements, for the formatter.
// Leaves (names, strings, durations, quantities) are printed exactly as written in the source,
// so quoting, escapes and spelling survive formatting; only layout and synonyms change
// (`==` → `=`, `,` between requirements → `and`, `consolidate after never` →
// `consolidate never`, `expire after never` → `expire never`).
import type {
  BudgetStmt,
  ClusterBudgetDecl,
  PodWindowStmt,
  Policy,
  Range,
  Requirement,
  ScheduleDecl,
  Selector,
  Statement,
  WindowExpr,
} from './ast.js';

/** Anything with a source range. */
export interface Ranged {
  range: Range;
}

/** Returns the source text a node was parsed from. */
export type RawText = (node: Ranged) => string;

const CONSOLIDATION_WORDS: Record<string, string> = {
  WhenEmpty: 'when empty',
  WhenEmptyOrUnderutilized: 'when empty or underutilized',
  Balanced: 'when balanced',
};

function list(raw: RawText, nodes: readonly Ranged[]): string {
  return nodes.map(raw).join(', ');
}

function windowText(raw: RawText, w: WindowExpr): string {
  let out = raw(w.schedule);
  if (w.duration) out += ` for ${raw(w.duration)}`;
  if (w.timeZone) out += ` in ${raw(w.timeZone)}`;
  return out;
}

function requirementText(raw: RawText, r: Requirement): string {
  const key = raw(r.key);
  const first = r.values[0];
  // `k in (v)` stays a set when written as one; only `==` is normalised to `=`.
  const asSet =
    first !== undefined &&
    /^(in|notin)\b/.test(raw({ range: { start: r.key.range.end, end: first.range.start } }).trim());
  switch (r.operator) {
    case 'Exists':
      return `${key} exists`;
    case 'DoesNotExist':
      return raw(r).startsWith('!') ? `!${key}` : `${key} not exists`;
    case 'In':
      return r.values.length === 1 && !asSet ? `${key} = ${raw(first!)}` : `${key} in (${list(raw, r.values)})`;
    case 'NotIn':
      return r.values.length === 1 && !asSet ? `${key} != ${raw(first!)}` : `${key} notin (${list(raw, r.values)})`;
    default: {
      const never: never = r.operator;
      throw new Error(`unhandled operator ${String(never)}`);
    }
  }
}

function selectorText(raw: RawText, s: Selector): string {
  return s.requirements.map((r) => requirementText(raw, r)).join(' and ');
}

/** `schedule NAME = "cron" [for D] [in "TZ"]` */
export function scheduleText(raw: RawText, d: ScheduleDecl): string {
  let out = `schedule ${raw(d.name)} = ${raw(d.cron)}`;
  if (d.duration) out += ` for ${raw(d.duration)}`;
  if (d.timeZone) out += ` in ${raw(d.timeZone)}`;
  return out;
}

/** `cluster budget N [for REASONS] [during WINDOW] [on nodepools A, B]` */
export function clusterBudgetText(raw: RawText, d: ClusterBudgetDecl): string {
  let out = `cluster budget ${raw(d.nodes)}`;
  if (d.reasons.length > 0) out += ` for ${list(raw, d.reasons)}`;
  if (d.window) out += ` during ${windowText(raw, d.window)}`;
  if (d.nodePools.length > 0) out += ` on nodepools ${list(raw, d.nodePools)}`;
  return out;
}

/** `policy NAME for nodepool(s) … {`, keeping `nodepool` or `nodepools` as written. */
export function policyHeaderText(raw: RawText, p: Policy): string {
  const keyword = raw(p.target).startsWith('nodepools') ? 'nodepools' : 'nodepool';
  const target =
    p.target.kind === 'NodePoolNames' ? list(raw, p.target.names) : `where ${selectorText(raw, p.target.selector)}`;
  return `policy ${raw(p.name)} for ${keyword} ${target} {`;
}

/** `budget N [per D] [for REASONS] [per reason] [on nodes where SELECTOR] [during WINDOW]` */
function budgetText(raw: RawText, s: BudgetStmt): string {
  let out = `budget ${raw(s.nodes)}`;
  if (s.per) out += ` per ${raw(s.per)}`;
  if (s.reasons.length > 0) out += ` for ${list(raw, s.reasons)}`;
  if (s.perReason) out += ' per reason';
  if (s.selector) out += ` on nodes where ${selectorText(raw, s.selector)}`;
  if (s.window) out += ` during ${windowText(raw, s.window)}`;
  return out;
}

/** `pods … disruptable only|never during WINDOW`, or pod protection `pods … never REASONS`. */
function podsText(raw: RawText, s: PodWindowStmt): string {
  let out = 'pods';
  if (s.selector) out += ` where ${selectorText(raw, s.selector)}`;
  if (s.namespaces.length > 0) out += ` in namespace ${list(raw, s.namespaces)}`;
  if (!s.window) return `${out} never ${list(raw, s.reasons ?? [])}`;
  return `${out} disruptable ${s.mode} during ${windowText(raw, s.window)}`;
}

/** One statement on one line, without indentation. */
export function statementText(raw: RawText, s: Statement): string {
  switch (s.kind) {
    case 'Consolidate': {
      const words = s.policy ? [CONSOLIDATION_WORDS[s.policy.text] ?? s.policy.text] : [];
      if (s.after?.kind === 'Never' && !s.policy) return 'consolidate never';
      if (s.after) words.push(`after ${s.after.kind === 'Never' ? 'never' : raw(s.after)}`);
      return `consolidate ${words.join(' ')}`;
    }
    case 'Expire':
      if (s.after.kind === 'Never' && !s.graceful) return 'expire never';
      return `expire after ${s.after.kind === 'Never' ? 'never' : raw(s.after)}${s.graceful ? ' gracefully' : ''}`;
    case 'TerminationGrace':
      return `termination grace ${raw(s.duration)}`;
    case 'TimeZone':
      return `timezone ${raw(s.zone)}`;
    case 'Budget':
      return budgetText(raw, s);
    case 'Allow': {
      const reasons = s.reasons.length > 0 ? ` ${list(raw, s.reasons)}` : '';
      return `allow ${raw(s.nodes)}${reasons} only during ${windowText(raw, s.window)}`;
    }
    case 'Freeze': {
      const reasons = s.reasons.length > 0 ? ` ${list(raw, s.reasons)}` : '';
      const zone = s.when.timeZone ? ` in ${raw(s.when.timeZone)}` : '';
      return `freeze${reasons} from ${raw(s.when.from)} to ${raw(s.when.to)}${zone}`;
    }
    case 'PodWindow':
      return podsText(raw, s);
    case 'MaintenanceWindow': {
      let out = `window ${raw(s.name)} blocks ${list(raw, s.reasons)}`;
      if (s.selector) out += ` on nodes where ${selectorText(raw, s.selector)}`;
      if (s.windows.length > 0) out += ` during ${s.windows.map((w) => windowText(raw, w)).join(', ')}`;
      return out;
    }
    default: {
      const never: never = s;
      throw new Error(`unhandled statement ${(never as Statement).kind}`);
    }
  }
}
