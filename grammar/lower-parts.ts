// SPDX-License-Identifier: Apache-2.0
// Lowering of the pieces statements are made of: leaves (names, strings, durations,
// quantities), windows and label selectors. Each function returns undefined when a required
// part is missing from a recovered CST; the caller then skips the whole statement.
import type { CstNode, IToken } from 'chevrotain';
import type {
  AfterClauseCstNode,
  NameListCstNode,
  QuantityCstNode,
  ReasonsCstNode,
  RequirementCstNode,
  SelectorCstNode,
  ValueCstNode,
  WindowCstNode,
} from './cst-types.js';
import type {
  DurationLit,
  Name,
  NeverLit,
  QuantityLit,
  Range,
  Requirement,
  Selector,
  Str,
  Unparsed,
  WindowExpr,
} from './ast.js';
import { nodeOf, nodesOf, spanOf, tokenOf, tokensOf, wasRecovered } from './cst.js';
import { diagnostic, type Diagnostic } from './diagnostic.js';
import { percentDigits, unquote } from './lexer.js';
import type { LineIndex } from './positions.js';

/** State shared by the lowering functions of one file. */
export interface LowerContext {
  lines: LineIndex;
  diagnostics: Diagnostic[];
  /** Text that did not make it into the AST (lower-junk.ts). */
  unparsed: Unparsed[];
  /** Whether the parser recovered from any error; when it did not, no node needs the walk. */
  recovered: boolean;
}

/** `wasRecovered`, skipped for a file that parsed without errors. */
export function wasRecoveredIn(ctx: LowerContext, node: CstNode): boolean {
  return ctx.recovered && wasRecovered(node);
}

export function rangeOf(ctx: LowerContext, node: CstNode): Range | undefined {
  // The tracked location directly, as `spanOf` reads it, without its intermediate object.
  const location = node.location;
  if (location) {
    const { startOffset, endOffset } = location;
    return Number.isFinite(startOffset) && endOffset !== undefined
      ? ctx.lines.range(startOffset, endOffset + 1)
      : undefined;
  }
  const span = spanOf(node);
  return span && ctx.lines.range(span.start, span.end);
}

export function nameOf(ctx: LowerContext, token: IToken | undefined): Name | undefined {
  return token && { kind: 'Name', text: token.image, range: ctx.lines.tokenRange(token) };
}

export function strOf(ctx: LowerContext, token: IToken | undefined): Str | undefined {
  return token && { kind: 'Str', value: unquote(token.image), range: ctx.lines.tokenRange(token) };
}

export function durationOf(ctx: LowerContext, token: IToken | undefined): DurationLit | undefined {
  return token && { kind: 'Duration', text: token.image, range: ctx.lines.tokenRange(token) };
}

export function neverOf(ctx: LowerContext, token: IToken | undefined): NeverLit | undefined {
  return token && { kind: 'Never', range: ctx.lines.tokenRange(token) };
}

/** `after D|never` */
export function afterOf(ctx: LowerContext, node: AfterClauseCstNode | undefined): DurationLit | NeverLit | undefined {
  return durationOf(ctx, tokenOf(node, 'Duration')) ?? neverOf(ctx, tokenOf(node, 'KwNever'));
}

/** `5` or `20%`; a fraction or an unsafe integer is reported and yields undefined. */
export function quantityOf(ctx: LowerContext, node: QuantityCstNode | undefined): QuantityLit | undefined {
  const token = tokenOf(node, 'NumberLit') ?? tokenOf(node, 'Percent');
  if (!token) return undefined;
  const percent = token.image.includes('%');
  // `10 %` and `%10` (reported by the lexer) lower as the `10%` they mean.
  const digits = percentDigits(token.image);
  const value = Number(digits);
  const range = ctx.lines.tokenRange(token);
  if (!/^\d+$/.test(digits) || !Number.isSafeInteger(value)) {
    ctx.diagnostics.push(diagnostic('invalidNumber', range, { text: token.image }));
    return undefined;
  }
  return { kind: 'Quantity', text: percent ? `${digits}%` : digits, value, percent, range };
}

/** `REASON, REASON…` as written; validated by the checker. */
export function reasonsOf(ctx: LowerContext, node: ReasonsCstNode | undefined): Name[] {
  return tokensOf(node, 'Name').map((t) => nameOf(ctx, t)!);
}

/** `a, b, c` of nodepool names or namespaces. */
export function namesOf(ctx: LowerContext, node: NameListCstNode | undefined): Name[] {
  return tokensOf(node, 'Identifier').map((t) => nameOf(ctx, t)!);
}

/** `"cron"|NAME [for D] [in "TZ"]` */
export function windowOf(ctx: LowerContext, node: WindowCstNode | undefined): WindowExpr | undefined {
  if (!node) return undefined;
  const schedule = strOf(ctx, tokenOf(node, 'StringLit')) ?? nameOf(ctx, tokenOf(node, 'Name'));
  const range = rangeOf(ctx, node);
  if (!schedule || !range) return undefined;
  const window: WindowExpr = { kind: 'Window', schedule, range };
  const duration = durationOf(ctx, tokenOf(nodeOf(node, 'forDuration'), 'Duration'));
  if (duration) window.duration = duration;
  const zone = strOf(ctx, tokenOf(nodeOf(node, 'inZone'), 'StringLit'));
  if (zone) window.timeZone = zone;
  return window;
}

/** Requirements joined by `and` or `,`. */
export function selectorOf(ctx: LowerContext, node: SelectorCstNode | undefined): Selector | undefined {
  if (!node) return undefined;
  const requirements: Requirement[] = [];
  for (const r of nodesOf(node, 'requirement')) {
    const lowered = requirementOf(ctx, r);
    if (!lowered) return undefined;
    requirements.push(lowered);
  }
  const range = rangeOf(ctx, node);
  if (requirements.length === 0 || !range) return undefined;
  return { kind: 'Selector', requirements, range };
}

function requirementOf(ctx: LowerContext, node: RequirementCstNode): Requirement | undefined {
  const key = nameOf(ctx, tokenOf(node, 'Identifier'));
  const range = rangeOf(ctx, node);
  if (!key || !range) return undefined;
  if (tokenOf(node, 'Bang')) return { kind: 'Requirement', key, operator: 'DoesNotExist', values: [], range };
  const tail = nodeOf(node, 'requirementTail');
  if (!tail) return undefined;
  const values = nodesOf(tail, 'value').map((v) => valueOf(ctx, v));
  if (values.some((v) => v === undefined)) return undefined;
  const strs = values as Str[];
  if (tokenOf(tail, 'KwNot')) return { kind: 'Requirement', key, operator: 'DoesNotExist', values: [], range };
  if (tokenOf(tail, 'KwExists')) return { kind: 'Requirement', key, operator: 'Exists', values: [], range };
  if (strs.length === 0) return undefined;
  const negated = tokenOf(tail, 'NotEquals') ?? tokenOf(tail, 'KwNotin');
  return { kind: 'Requirement', key, operator: negated ? 'NotIn' : 'In', values: strs, range };
}

function valueOf(ctx: LowerContext, node: ValueCstNode): Str | undefined {
  const quoted = tokenOf(node, 'StringLit');
  if (quoted) return strOf(ctx, quoted);
  const bare = tokenOf(node, 'Identifier') ?? tokenOf(node, 'NumberLit') ?? tokenOf(node, 'Duration');
  return bare && { kind: 'Str', value: bare.image, range: ctx.lines.tokenRange(bare) };
}
