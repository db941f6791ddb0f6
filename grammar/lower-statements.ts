// SPDX-License-Identifier: Apache-2.0
// Lowering of policy-body statements and schedule declarations from CST to AST. A statement
// that error recovery touched is skipped (its error is already reported), so the AST only ever
// holds statements that were written out in full.
import type { CstNode, IToken } from 'chevrotain';
import type {
  AllowStmtCstNode,
  BudgetStmtCstNode,
  ClusterBudgetCstNode,
  ConsolidateStmtCstNode,
  ExpireStmtCstNode,
  FreezeStmtCstNode,
  PodsStmtCstNode,
  ScheduleDeclCstNode,
  TerminationStmtCstNode,
  TimezoneStmtCstNode,
  WindowStmtCstNode,
} from './cst-types.js';
import type {
  AllowStmt,
  BudgetStmt,
  ClusterBudgetDecl,
  ConsolidateStmt,
  DateRange,
  ExpireStmt,
  FreezeStmt,
  MaintenanceWindowStmt,
  Name,
  PodWindowStmt,
  ScheduleDecl,
  Statement,
  TerminationGraceStmt,
  TimeZoneStmt,
  WindowExpr,
} from './ast.js';
import { nodeOf, nodesOf, tokenOf, tokensOf } from './cst.js';
import {
  afterOf,
  durationOf,
  type LowerContext,
  nameOf,
  namesOf,
  neverOf,
  quantityOf,
  rangeOf,
  reasonsOf,
  selectorOf,
  strOf,
  wasRecoveredIn,
  windowOf,
} from './lower-parts.js';

/** Lowers one statement node (`consolidateStmt`, `budgetStmt`, …); undefined when incomplete or unknown. */
export function lowerStatement(ctx: LowerContext, node: CstNode): Statement | undefined {
  if (wasRecoveredIn(ctx, node)) return undefined;
  switch (node.name) {
    case 'consolidateStmt':
      return consolidate(ctx, node as ConsolidateStmtCstNode);
    case 'expireStmt':
      return expire(ctx, node as ExpireStmtCstNode);
    case 'terminationStmt':
      return termination(ctx, node as TerminationStmtCstNode);
    case 'timezoneStmt':
      return timezone(ctx, node as TimezoneStmtCstNode);
    case 'budgetStmt':
      return budget(ctx, node as BudgetStmtCstNode);
    case 'allowStmt':
      return allow(ctx, node as AllowStmtCstNode);
    case 'freezeStmt':
      return freeze(ctx, node as FreezeStmtCstNode);
    case 'podsStmt':
      return pods(ctx, node as PodsStmtCstNode);
    case 'windowStmt':
      return maintenanceWindow(ctx, node as WindowStmtCstNode);
    default:
      return undefined;
  }
}

/** `schedule NAME = "cron" [for D] [in "TZ"]`; undefined when incomplete. */
export function lowerScheduleDecl(ctx: LowerContext, node: ScheduleDeclCstNode): ScheduleDecl | undefined {
  if (wasRecoveredIn(ctx, node)) return undefined;
  const name = nameOf(ctx, tokenOf(node, 'Name'));
  const cron = strOf(ctx, tokenOf(node, 'StringLit'));
  const range = rangeOf(ctx, node);
  if (!name || !cron || !range) return undefined;
  const decl: ScheduleDecl = { kind: 'ScheduleDecl', name, cron, range };
  const duration = durationOf(ctx, tokenOf(nodeOf(node, 'forDuration'), 'Duration'));
  if (duration) decl.duration = duration;
  const zone = strOf(ctx, tokenOf(nodeOf(node, 'inZone'), 'StringLit'));
  if (zone) decl.timeZone = zone;
  return decl;
}

const CONSOLIDATION_POLICY = {
  empty: 'WhenEmpty',
  underutilized: 'WhenEmptyOrUnderutilized',
  balanced: 'Balanced',
} as const;

function consolidate(ctx: LowerContext, node: ConsolidateStmtCstNode): ConsolidateStmt | undefined {
  const range = rangeOf(ctx, node)!;
  const stmt: ConsolidateStmt = { kind: 'Consolidate', range };
  const never = tokenOf(node, 'KwNever');
  if (never) return { ...stmt, after: neverOf(ctx, never) };
  if (tokenOf(node, 'KwWhen')) {
    const { first, last } = firstAndLast(
      (['KwEmpty', 'KwOr', 'KwUnderutilized', 'KwBalanced'] as const).flatMap((key) => tokensOf(node, key)),
    );
    if (!first || !last) return undefined;
    const key = last.image as keyof typeof CONSOLIDATION_POLICY;
    const text = CONSOLIDATION_POLICY[key];
    const wordsRange = ctx.lines.range(first.startOffset, last.startOffset + last.image.length);
    stmt.policy = { kind: 'Name', text, range: wordsRange };
  }
  const after = afterOf(ctx, nodeOf(node, 'afterClause'));
  if (after) stmt.after = after;
  return stmt.policy || stmt.after ? stmt : undefined;
}

function firstAndLast(tokens: readonly IToken[]): { first?: IToken; last?: IToken } {
  let first: IToken | undefined;
  let last: IToken | undefined;
  for (const t of tokens) {
    if (!first || t.startOffset < first.startOffset) first = t;
    if (!last || t.startOffset > last.startOffset) last = t;
  }
  return { first, last };
}

function expire(ctx: LowerContext, node: ExpireStmtCstNode): ExpireStmt | undefined {
  const after = neverOf(ctx, tokenOf(node, 'KwNever')) ?? afterOf(ctx, nodeOf(node, 'afterClause'));
  if (!after) return undefined;
  return { kind: 'Expire', after, graceful: tokenOf(node, 'KwGracefully') !== undefined, range: rangeOf(ctx, node)! };
}

function termination(ctx: LowerContext, node: TerminationStmtCstNode): TerminationGraceStmt | undefined {
  const duration = durationOf(ctx, tokenOf(node, 'Duration'));
  return duration && { kind: 'TerminationGrace', duration, range: rangeOf(ctx, node)! };
}

function timezone(ctx: LowerContext, node: TimezoneStmtCstNode): TimeZoneStmt | undefined {
  const zone = strOf(ctx, tokenOf(node, 'StringLit'));
  return zone && { kind: 'TimeZone', zone, range: rangeOf(ctx, node)! };
}

/**
 * Lowers an optional part: absent → `{}` (nothing to set); present but broken → undefined
 * (the statement is dropped, its error already reported); else `{ value }`.
 */
function optionalPart<N extends CstNode, T>(
  ctx: LowerContext,
  node: N | undefined,
  lowerPart: (ctx: LowerContext, n: N) => T | undefined,
): { value?: T } | undefined {
  if (!node) return {};
  const value = lowerPart(ctx, node);
  return value === undefined ? undefined : { value };
}

function budget(ctx: LowerContext, node: BudgetStmtCstNode): BudgetStmt | undefined {
  const nodes = quantityOf(ctx, nodeOf(node, 'quantity'));
  if (!nodes) return undefined;
  const window = optionalPart(ctx, nodeOf(node, 'window'), windowOf);
  const selector = optionalPart(ctx, nodeOf(node, 'selector'), selectorOf);
  if (!window || !selector) return undefined;
  const stmt: BudgetStmt = {
    kind: 'Budget',
    nodes,
    reasons: reasonsOf(ctx, nodeOf(node, 'reasons')),
    range: rangeOf(ctx, node)!,
  };
  const period = durationOf(ctx, tokenOf(nodeOf(node, 'ratePeriod'), 'Duration'));
  if (period) stmt.per = period;
  const per = tokenOf(node, 'KwPer');
  const reason = tokenOf(node, 'KwReason');
  if (per && reason)
    stmt.perReason = {
      kind: 'PerReason',
      range: ctx.lines.range(per.startOffset, reason.startOffset + reason.image.length),
    };
  if (selector.value) stmt.selector = selector.value;
  if (window.value) stmt.window = window.value;
  return stmt;
}

/** `cluster budget N [for REASONS] [during WINDOW] [on nodepools A, B]`; undefined when incomplete. */
export function lowerClusterBudget(ctx: LowerContext, node: ClusterBudgetCstNode): ClusterBudgetDecl | undefined {
  if (wasRecoveredIn(ctx, node)) return undefined;
  const nodes = quantityOf(ctx, nodeOf(node, 'quantity'));
  const window = optionalPart(ctx, nodeOf(node, 'window'), windowOf);
  const range = rangeOf(ctx, node);
  if (!nodes || !window || !range) return undefined;
  const decl: ClusterBudgetDecl = {
    kind: 'ClusterBudget',
    nodes,
    reasons: reasonsOf(ctx, nodeOf(node, 'reasons')),
    nodePools: namesOf(ctx, nodeOf(node, 'nameList')),
    range,
  };
  if (window.value) decl.window = window.value;
  return decl;
}

function allow(ctx: LowerContext, node: AllowStmtCstNode): AllowStmt | undefined {
  const nodes = quantityOf(ctx, nodeOf(node, 'quantity'));
  const window = windowOf(ctx, nodeOf(node, 'window'));
  if (!nodes || !window) return undefined;
  return { kind: 'Allow', nodes, reasons: reasonsOf(ctx, nodeOf(node, 'reasons')), window, range: rangeOf(ctx, node)! };
}

function freeze(ctx: LowerContext, node: FreezeStmtCstNode): FreezeStmt | undefined {
  const [fromTok, toTok] = tokensOf(node, 'StringLit');
  const from = strOf(ctx, fromTok);
  const to = strOf(ctx, toTok);
  const fromKeyword = tokenOf(node, 'KwFrom');
  if (!from || !to || !fromKeyword) return undefined;
  const zone = strOf(ctx, tokenOf(nodeOf(node, 'inZone'), 'StringLit'));
  const end = zone?.range.end.offset ?? to.range.end.offset;
  const when: DateRange = { kind: 'DateRange', from, to, range: ctx.lines.range(fromKeyword.startOffset, end) };
  if (zone) when.timeZone = zone;
  return { kind: 'Freeze', reasons: reasonsOf(ctx, nodeOf(node, 'reasons')), when, range: rangeOf(ctx, node)! };
}

function pods(ctx: LowerContext, node: PodsStmtCstNode): PodWindowStmt | undefined {
  const selector = optionalPart(ctx, nodeOf(node, 'selector'), selectorOf);
  if (!selector) return undefined;
  const stmt: PodWindowStmt = {
    kind: 'PodWindow',
    namespaces: namesOf(ctx, nodeOf(node, 'nameList')),
    mode: tokenOf(node, 'KwNever') ? 'never' : 'only',
    range: rangeOf(ctx, node)!,
  };
  if (tokenOf(node, 'KwDisruptable')) {
    const window = windowOf(ctx, nodeOf(node, 'window'));
    if (!window) return undefined;
    stmt.window = window;
  } else {
    // `never REASONS`: no window, the listed reasons only
    const reasons = reasonsOf(ctx, nodeOf(node, 'reasons'));
    if (reasons.length === 0) return undefined;
    stmt.reasons = reasons;
  }
  if (selector.value) stmt.selector = selector.value;
  return stmt;
}

function maintenanceWindow(ctx: LowerContext, node: WindowStmtCstNode): MaintenanceWindowStmt | undefined {
  const name: Name | undefined = nameOf(ctx, tokenOf(node, 'Identifier'));
  const reasons = reasonsOf(ctx, nodeOf(node, 'reasons'));
  const windows = nodesOf(node, 'window').map((w) => windowOf(ctx, w));
  const selector = optionalPart(ctx, nodeOf(node, 'selector'), selectorOf);
  if (!name || !selector || reasons.length === 0 || windows.some((w) => w === undefined)) return undefined;
  const stmt: MaintenanceWindowStmt = {
    kind: 'MaintenanceWindow',
    name,
    reasons,
    windows: windows as WindowExpr[],
    range: rangeOf(ctx, node)!,
  };
  if (selector.value) stmt.selector = selector.value;
  return stmt;
}
