// SPDX-License-Identifier: Apache-2.0
// lower: CST to AST. Works on partial CSTs from error recovery: incomplete statements and
// policies are skipped, never thrown on. Unknown statements and unknown top-level text are
// reported here, unless the parser already reported an error at one of their tokens (they are
// then the remainder of a statement that failed, and one error per statement is enough).
import type { CstNode, IToken } from 'chevrotain';
import type { Comment, Policy, PolicyFile, ScheduleDecl, Statement, Target } from './ast.js';
import { allTokensOf, nodeOf, nodesOf, onlyChild, tokenOf } from './cst.js';
import { diagnostic, type Diagnostic } from './diagnostic.js';
import { type LowerContext, nameOf, namesOf, rangeOf, selectorOf, wasRecoveredIn } from './lower-parts.js';
import { lowerScheduleDecl, lowerStatement } from './lower-statements.js';
import type { LineIndex } from './positions.js';

/** What `lower` needs besides the CST. */
export interface LowerInput {
  cst: CstNode;
  tokens: IToken[];
  comments: Comment[];
  lines: LineIndex;
  /** Start offsets of the tokens the lexer or parser already reported errors at. */
  errorOffsets: ReadonlySet<number>;
  /** False when the parser reported no error, so recovery touched no node; assumed true when left out. */
  recovered?: boolean;
}

const MAX_FOUND_CHARS = 40;

/** Lowers a file CST to the AST plus the diagnostics lowering itself finds. */
export function lower(input: LowerInput): { value: PolicyFile; diagnostics: Diagnostic[] } {
  const ctx: LowerContext = { lines: input.lines, diagnostics: [], recovered: input.recovered ?? true };
  const schedules: ScheduleDecl[] = [];
  const policies: Policy[] = [];
  for (const item of nodesOf(input.cst, 'scheduleDecl')) {
    const decl = lowerScheduleDecl(ctx, item);
    if (decl) schedules.push(decl);
  }
  for (const item of nodesOf(input.cst, 'policy')) {
    const policy = lowerPolicy(ctx, input, item);
    if (policy) policies.push(policy);
  }
  for (const junk of nodesOf(input.cst, 'topLevelJunk')) {
    reportJunk(ctx, input, junk, diagnosticFor('unexpectedToken', '`policy` or `schedule`'));
  }
  const file: PolicyFile = {
    kind: 'File',
    schedules,
    policies,
    comments: input.comments,
    range: input.lines.range(0, input.lines.text.length),
  };
  return { value: file, diagnostics: ctx.diagnostics };
}

type JunkDiagnostic = (first: IToken, range: Diagnostic['range']) => Diagnostic;

function diagnosticFor(name: 'unexpectedToken' | 'unexpectedStatement', expected = ''): JunkDiagnostic {
  return (first, range) => diagnostic(name, range, { expected, found: shorten(first.image) });
}

function shorten(image: string): string {
  return image.length > MAX_FOUND_CHARS ? `${image.slice(0, MAX_FOUND_CHARS)}…` : image;
}

function lowerPolicy(ctx: LowerContext, input: LowerInput, node: CstNode): Policy | undefined {
  const targetNode = nodeOf(node, 'target');
  const name = nameOf(ctx, tokenOf(node, 'Identifier'));
  const target = targetNode && !wasRecoveredIn(ctx, targetNode) ? lowerTarget(ctx, targetNode) : undefined;
  const statements: Statement[] = [];
  for (const wrapper of nodesOf(node, 'statement')) {
    const stmt = onlyChild(wrapper);
    if (!stmt) continue;
    if (stmt.name === 'unknownStmt') {
      reportJunk(ctx, input, stmt, unknownStatementDiagnostic(input));
      continue;
    }
    const lowered = lowerStatement(ctx, stmt);
    if (lowered) statements.push(lowered);
  }
  const range = rangeOf(ctx, node);
  if (!name || !target || !range) return undefined;
  return { kind: 'Policy', name, target, statements, range };
}

function lowerTarget(ctx: LowerContext, node: CstNode): Target | undefined {
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

/** Words left over on the line of a statement read as "expected the end of the statement". */
function unknownStatementDiagnostic(input: LowerInput): JunkDiagnostic {
  return (first, range) => {
    const index = input.tokens.indexOf(first);
    const previous = index > 0 ? input.tokens[index - 1] : undefined;
    const sameLine =
      previous !== undefined &&
      previous.tokenType.name !== 'LCurly' &&
      input.lines.positionAt(previous.startOffset).line === range.start.line;
    return sameLine
      ? diagnosticFor('unexpectedToken', 'the end of the statement')(first, range)
      : diagnosticFor('unexpectedStatement')(first, range);
  };
}

function reportJunk(ctx: LowerContext, input: LowerInput, node: CstNode, make: JunkDiagnostic): void {
  const tokens = allTokensOf(node);
  const first = tokens[0];
  if (!first || tokens.some((t) => input.errorOffsets.has(t.startOffset))) return;
  ctx.diagnostics.push(make(first, input.lines.tokenRange(first)));
}
