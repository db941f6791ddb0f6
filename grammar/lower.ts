// SPDX-License-Identifier: Apache-2.0
// lower: CST to AST. Works on partial CSTs from error recovery: incomplete statements and
// policies are skipped, never thrown on, and recorded as unparsed; unknown statements and
// unknown top-level text are reported by lower-junk.ts.
import type { CstNode, IToken } from 'chevrotain';
import type { FileCstNode, PolicyCstNode, TargetCstNode } from './cst-types.js';
import type { ClusterBudgetDecl, Comment, Policy, PolicyFile, ScheduleDecl, Statement, Target } from './ast.js';
import { allTokensOf, nodeOf, nodesOf, onlyChild, spanOf, tokenOf } from './cst.js';
import type { Diagnostic } from './diagnostic.js';
import { markUnparsed, reportTopLevelJunk, reportUnknownStatement } from './lower-junk.js';
import { type LowerContext, nameOf, namesOf, rangeOf, selectorOf, wasRecoveredIn } from './lower-parts.js';
import { lowerClusterBudget, lowerScheduleDecl, lowerStatement } from './lower-statements.js';
import type { LineIndex } from './positions.js';

/** What `lower` needs besides the CST. */
export interface LowerInput {
  cst: FileCstNode;
  tokens: IToken[];
  comments: Comment[];
  lines: LineIndex;
  /** Start offsets of the tokens the lexer or parser already reported errors at. */
  errorOffsets: ReadonlySet<number>;
  /** False when the parser reported no error, so recovery touched no node; assumed true when left out. */
  recovered?: boolean;
  /** Policies lowered while the file was parsed (`EarlyPolicies`); they precede any left in `cst`. */
  early?: EarlyPolicies;
}

/**
 * Policies lowered one by one as the parser completes them, before any error (parser.ts
 * `parseTokens`), then handed to `lower` with the rest of the CST. Their lowering state is the
 * file's: `lower` goes on with the same diagnostics and unparsed text.
 */
export class EarlyPolicies {
  readonly policies: Policy[] = [];
  readonly ctx: LowerContext;

  /** `errorOffsets`: those the lexer reported; the parser has reported none before these policies. */
  constructor(
    lines: LineIndex,
    private readonly errorOffsets: ReadonlySet<number>,
  ) {
    // No error yet, so recovery touched none of these policies.
    this.ctx = { lines, diagnostics: [], unparsed: [], recovered: false };
  }

  add(node: PolicyCstNode): void {
    const policy = lowerPolicy(this.ctx, this.errorOffsets, node);
    if (policy) this.policies.push(policy);
  }
}

/** Lowers a file CST to the AST plus the diagnostics lowering itself finds. */
export function lower(input: LowerInput): { value: PolicyFile; diagnostics: Diagnostic[] } {
  const recovered = input.recovered ?? true;
  const ctx: LowerContext = input.early
    ? { ...input.early.ctx, recovered }
    : { lines: input.lines, diagnostics: [], unparsed: [], recovered };
  const schedules: ScheduleDecl[] = [];
  const policies: Policy[] = input.early ? [...input.early.policies] : [];
  for (const item of nodesOf(input.cst, 'scheduleDecl')) {
    const decl = lowerScheduleDecl(ctx, item);
    if (decl) schedules.push(decl);
    else markUnparsed(ctx, allTokensOf(item));
  }
  for (const item of nodesOf(input.cst, 'policy')) {
    const policy = lowerPolicy(ctx, input.errorOffsets, item);
    if (policy) policies.push(policy);
  }
  const clusterBudgets: ClusterBudgetDecl[] = [];
  for (const item of nodesOf(input.cst, 'clusterBudget')) {
    const decl = lowerClusterBudget(ctx, item);
    if (decl) clusterBudgets.push(decl);
    else markUnparsed(ctx, allTokensOf(item));
  }
  for (const junk of nodesOf(input.cst, 'topLevelJunk')) reportTopLevelJunk(ctx, junk, input.errorOffsets);
  const file: PolicyFile = {
    kind: 'File',
    schedules,
    policies,
    comments: input.comments,
    range: input.lines.range(0, input.lines.text.length),
  };
  if (clusterBudgets.length > 0) file.clusterBudgets = clusterBudgets;
  if (ctx.unparsed.length > 0) file.unparsed = ctx.unparsed.sort((a, b) => a.range.start.offset - b.range.start.offset);
  return { value: file, diagnostics: ctx.diagnostics };
}

function lowerPolicy(ctx: LowerContext, errorOffsets: ReadonlySet<number>, node: PolicyCstNode): Policy | undefined {
  const targetNode = nodeOf(node, 'target');
  const name = nameOf(ctx, tokenOf(node, 'Identifier'));
  const target = targetNode && !wasRecoveredIn(ctx, targetNode) ? lowerTarget(ctx, targetNode) : undefined;
  const statements: Statement[] = [];
  const nodes = nodesOf(node, 'statement')
    .map(onlyChild)
    .filter((n): n is CstNode => n !== undefined);
  nodes.forEach((stmt, i) => {
    const previous = nodes[i - 1];
    if (stmt.name === 'unknownStmt') {
      reportUnknownStatement(ctx, stmt, previous, errorOffsets);
      return;
    }
    // Words left on its line mean the statement was not written as it parsed (`budget 1 fro
    // Empty` is no `budget 1`): it is left out like one recovery cut short.
    const lowered = hasLeftOver(ctx, stmt, nodes[i + 1]) ? undefined : lowerStatement(ctx, stmt);
    if (lowered) statements.push(lowered);
    else markUnparsed(ctx, allTokensOf(stmt));
  });
  const range = rangeOf(ctx, node);
  if (!name || !target || !range) {
    markUnparsed(ctx, allTokensOf(node));
    return undefined;
  }
  return { kind: 'Policy', name, target, statements, range };
}

function hasLeftOver(ctx: LowerContext, stmt: CstNode, next: CstNode | undefined): boolean {
  if (next?.name !== 'unknownStmt') return false;
  const end = spanOf(stmt)?.end;
  const junk = spanOf(next)?.start;
  return end !== undefined && junk !== undefined && ctx.lines.positionAt(end).line === ctx.lines.positionAt(junk).line;
}

function lowerTarget(ctx: LowerContext, node: TargetCstNode): Target | undefined {
  const range = rangeOf(ctx, node);
  if (!range) return undefined;
  const selectorNode = nodeOf(node, 'selector');
  if (selectorNode) {
    const selector = selectorOf(ctx, selectorNode);
    return selector && { kind: 'NodePoolSelector', selector, range };
  }
  const names = namesOf(ctx, nodeOf(node, 'nameList'));
  return names.length > 0 ? { kind: 'NodePoolNames', names, range } : undefined;
}
