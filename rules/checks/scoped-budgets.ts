// SPDX-License-Identifier: Apache-2.0
// Stage: scoped budgets (issue 15) — `budget … on nodes where SELECTOR` inside a policy and
// top-level `cluster budget …` → ScopedBudgetSpec, with the ownership rule that answers
// Karpenter's maintainers (a selector must not let a user block pools they do not own):
// - a selector budget is carried by its policy and counts only nodes of that policy's pools; a
//   selector naming another pool through `karpenter.sh/nodepool` is an error (KPOL2052), one that
//   can match no node a warning (KPOL3050), and `per reason` on it an error (KPOL2053);
// - a cluster budget is owned by its file: it counts the pools the file's policies govern, and
//   every pool it names must be governed by a policy of the same file (KPOL2050), so a file can
//   never constrain a pool whose policy lives elsewhere. Without a policy it is an error (KPOL2051).
import type { BudgetStmt, ClusterBudgetDecl, Name, QuantityLit, Selector, WindowExpr } from '../../grammar/ast.js';
import { diagnostic } from '../../grammar/diagnostic.js';
import { REASONS, type LabelSelector, type Quantity, type Reason, type ScopedBudgetSpec } from '../model.js';
import { report, type CheckContext, type FileScope, type PolicyUnit } from './context.js';
import { lowerWindow } from './lower-window.js';
import { lowerReasons } from './reasons.js';
import { lowerSelector } from './selectors.js';
import { suggestion } from './notes.js';
import { MAX_BUDGET_NODES } from './budget-statements.js';

/** The label Karpenter puts on every node with the name of its NodePool. */
export const NODEPOOL_LABEL = 'karpenter.sh/nodepool';

/** Stage (reach `policy`): `budget … on nodes where …` of each policy. */
export function lowerSelectorBudgets(ctx: CheckContext): void {
  for (const unit of ctx.units) {
    const stmts = unit.ast.statements.filter((s): s is BudgetStmt => s.kind === 'Budget' && !!s.selector);
    const scoped = stmts.map((s, i) => lowerSelectorBudget(unit, s, i));
    if (scoped.length > 0) unit.spec.scopedBudgets = scoped;
  }
}

/** Stage (reach `all`): each file's `cluster budget`s, carried by every policy of the file. */
export function lowerClusterBudgets(ctx: CheckContext): void {
  for (const scope of ctx.scopes) {
    const decls = scope.file.clusterBudgets ?? [];
    if (decls.length === 0) continue;
    const units = ctx.units.filter((u) => u.scope === scope);
    for (const decl of decls) {
      if (units.length === 0) {
        report(scope, diagnostic('clusterBudgetWithoutPolicy', decl.range));
        continue;
      }
      const spec = lowerClusterBudget(scope, units, decl);
      for (const u of units) u.spec.scopedBudgets = [...(u.spec.scopedBudgets ?? []), spec];
    }
  }
}

function lowerSelectorBudget(unit: PolicyUnit, stmt: BudgetStmt, i: number): ScopedBudgetSpec {
  const selector = lowerSelector(stmt.selector);
  checkOwnership(unit, stmt.selector!, selector);
  // A scope counts one shared disrupting number; a bucket would be silently ignored there.
  if (stmt.perReason) report(unit, diagnostic('perReasonOnSelectorBudget', stmt.perReason.range));
  const spec: ScopedBudgetSpec = {
    id: `${unit.spec.name}/s${i}`,
    statement: describe('budget', stmt.nodes, stmt.reasons, stmt.window, `on nodes where ${selectorText(selector)}`),
    at: where(unit.scope, unit.spec.name, stmt),
    scope: { kind: 'nodes', selector },
    nodes: quantity(unit.scope, stmt.nodes),
    reasons: lowerReasons(unit, stmt.reasons),
    source: stmt.range,
  };
  if (stmt.window) {
    spec.window = lowerWindow(unit, stmt.window, 'budget');
    if (spec.window.error) spec.error = spec.window.error;
  }
  return spec;
}

/**
 * KPOL2052 and KPOL3050: the selector may narrow the policy's pools, never reach past them, and
 * must be able to match something.
 */
function checkOwnership(unit: PolicyUnit, ast: Selector, selector: LabelSelector): void {
  const target = unit.spec.target;
  const owned = target.kind === 'names' ? new Set(target.names) : undefined;
  for (const r of ast.requirements) {
    if (r.key.text !== NODEPOOL_LABEL || r.operator !== 'In' || !owned) continue;
    for (const v of r.values)
      if (!owned.has(v.value))
        report(unit, diagnostic('selectorBudgetForeignPool', v.range, { pool: v.value, policy: unit.spec.name }));
  }
  const why = contradiction(selector, owned);
  if (why) report(unit, diagnostic('selectorBudgetMatchesNothing', ast.range, { why }));
}

/** Why no label set can satisfy every requirement (undefined when one can). */
export function contradiction(selector: LabelSelector, ownedPools?: ReadonlySet<string>): string | undefined {
  const keys = new Set(selector.map((r) => r.key));
  for (const key of keys) {
    const rs = selector.filter((r) => r.key === key);
    const absent = rs.some((r) => r.operator === 'DoesNotExist');
    const present = rs.some((r) => r.operator === 'Exists' || r.operator === 'In');
    if (absent && present) return `\`${key}\` must both exist and not exist`;
    let allowed: Set<string> | undefined = key === NODEPOOL_LABEL && ownedPools ? new Set(ownedPools) : undefined;
    for (const r of rs) {
      if (r.operator !== 'In') continue;
      allowed = allowed ? new Set(r.values.filter((v) => allowed!.has(v))) : new Set(r.values);
    }
    if (!allowed) continue;
    for (const r of rs) if (r.operator === 'NotIn') for (const v of r.values) allowed.delete(v);
    if (allowed.size === 0)
      return key === NODEPOOL_LABEL && ownedPools
        ? `no NodePool the policy governs has a \`${key}\` value it accepts`
        : `no value of \`${key}\` satisfies every requirement`;
  }
  return undefined;
}

function lowerClusterBudget(scope: FileScope, units: PolicyUnit[], decl: ClusterBudgetDecl): ScopedBudgetSpec {
  const named = new Set(units.flatMap((u) => (u.spec.target.kind === 'names' ? u.spec.target.names : [])));
  const bySelector = units.some((u) => u.spec.target.kind === 'selector');
  for (const pool of decl.nodePools) {
    if (named.has(pool.text)) continue;
    if (bySelector) report(scope, diagnostic('clusterBudgetPoolBySelector', pool.range, { pool: pool.text }));
    else {
      const s = suggestion(pool.text, [...named], 2);
      report(scope, diagnostic('clusterBudgetForeignPool', pool.range, { pool: pool.text }, s ?? {}));
    }
  }
  // Windows and reasons are lowered as in a policy of the file, in UTC (a cluster budget has no
  // `timezone` statement; a window may give its own `in "ZONE"`). The holder is the file's first
  // policy only for reporting; Expired is accepted when any policy of the file expires gracefully.
  const holder: PolicyUnit = {
    ...units[0]!,
    defaultZone: 'UTC',
    windows: [],
    spec: {
      ...units[0]!.spec,
      expiration: units.some((u) => u.spec.expiration === 'graceful') ? 'graceful' : 'forceful',
    },
  };
  const pools = decl.nodePools.length > 0 ? `on nodepools ${decl.nodePools.map((n) => n.text).join(', ')}` : '';
  const spec: ScopedBudgetSpec = {
    // Unique across the set: policy names are (KPOL2012's stage), and a line holds one declaration.
    id: `cluster:${units[0]!.spec.name}:${decl.range.start.line + 1}`,
    statement: describe('cluster budget', decl.nodes, decl.reasons, decl.window, pools),
    at: where(scope, undefined, decl),
    scope: {
      kind: 'cluster',
      nodePools: decl.nodePools.length > 0 ? decl.nodePools.map((n) => n.text) : null,
      owners: units.map((u) => u.spec.name),
    },
    nodes: quantity(scope, decl.nodes),
    reasons: lowerReasons(holder, decl.reasons),
    source: decl.range,
  };
  if (decl.window) {
    spec.window = lowerWindow(holder, decl.window, 'budget');
    if (spec.window.error) spec.error = spec.window.error;
  }
  return spec;
}

function quantity(scope: FileScope, lit: QuantityLit): Quantity {
  if (!lit.percent) {
    if (lit.value > MAX_BUDGET_NODES) report(scope, diagnostic('countTooLarge', lit.range, { text: lit.text }));
    return { kind: 'count', value: Math.min(lit.value, MAX_BUDGET_NODES) };
  }
  if (lit.value > 100) report(scope, diagnostic('percentOver100', lit.range, { text: lit.text }));
  return { kind: 'percent', value: Math.min(lit.value, 100) };
}

function where(scope: FileScope, policy: string | undefined, node: { range: { start: { line: number } } }): string {
  const file = scope.fileName === '<input>' ? (policy ?? scope.fileName) : scope.fileName;
  return `${file.split('/').pop()}:${node.range.start.line + 1}`;
}

/** The statement in canonical words, for why-not messages (the evaluator has no source text). */
function describe(
  keyword: string,
  nodes: QuantityLit,
  reasons: readonly Name[],
  window: WindowExpr | undefined,
  tail: string,
): string {
  const parts = [`${keyword} ${nodes.text}`];
  const known = reasons.map((r) => r.text).filter((r) => (REASONS as readonly string[]).includes(r)) as Reason[];
  if (known.length > 0) parts.push(`for ${known.join(', ')}`);
  if (tail) parts.push(tail);
  if (window) {
    const schedule = window.schedule.kind === 'Str' ? JSON.stringify(window.schedule.value) : window.schedule.text;
    parts.push(`during ${schedule}${window.duration ? ` for ${window.duration.text}` : ''}`);
  }
  return parts.join(' ');
}

function selectorText(selector: LabelSelector): string {
  return selector
    .map((r) => {
      if (r.operator === 'Exists') return `${r.key} exists`;
      if (r.operator === 'DoesNotExist') return `${r.key} not exists`;
      if (r.values.length === 1) return `${r.key} ${r.operator === 'In' ? '=' : '!='} ${r.values[0]}`;
      return `${r.key} ${r.operator === 'In' ? 'in' : 'notin'} (${r.values.join(', ')})`;
    })
    .join(' and ');
}
