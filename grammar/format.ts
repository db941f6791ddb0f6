// SPDX-License-Identifier: Apache-2.0
// formatSource: the canonical text of a .kpol file. Two-space indent, one statement per line,
// a blank line between top-level items, comments kept (above the item they precede, or after
// the line they end). Idempotent, and the formatted text parses to the same AST modulo ranges.
import type { ClusterBudgetDecl, Comment, Policy, PolicyFile, Range, ScheduleDecl } from './ast.js';
import { attachComments, type Attached } from './attach-comments.js';
import { hasErrors, type Result } from './diagnostic.js';
import { parse } from './parse.js';
import { clusterBudgetText, policyHeaderText, type RawText, scheduleText, statementText } from './print-statement.js';

const INDENT = '  ';

/**
 * Formats `text`. When it has syntax errors the value is undefined and the diagnostics say
 * why; otherwise the value is the canonical text, ending with one newline (or empty).
 */
export function formatSource(text: string): Result<string | undefined> {
  const parsed = parse(text);
  const { diagnostics, omitted } = parsed;
  const value = hasErrors(diagnostics) ? undefined : printFile(text, parsed.value);
  return omitted ? { value, diagnostics, omitted } : { value, diagnostics };
}

function printFile(text: string, file: PolicyFile): string {
  const raw: RawText = (n) => text.slice(n.range.start.offset, n.range.end.offset);
  const out: string[] = [];
  const items: (ScheduleDecl | ClusterBudgetDecl | Policy)[] = [
    ...file.schedules,
    ...(file.clusterBudgets ?? []),
    ...file.policies,
  ].sort((a, b) => a.range.start.offset - b.range.start.offset);
  const bodies = new Map<Policy, { open: Range; comments: Comment[] }>();
  const bodyComments = new Set<Comment>();
  for (const item of items) {
    if (item.kind !== 'Policy') continue;
    const open = openBraceRange(text, item);
    const comments = file.comments.filter(
      (c) => c.range.start.offset >= open.end.offset && c.range.start.offset < item.range.end.offset,
    );
    comments.forEach((c) => bodyComments.add(c));
    bodies.set(item, { open, comments });
  }
  const top = attachComments(
    file.comments.filter((c) => !bodyComments.has(c)),
    items.map((i) => i.range),
  );
  items.forEach((item, i) => {
    if (i > 0) out.push('');
    const attached = top.units[i]!;
    emitLeading(out, attached.leading, item.range, '');
    if (item.kind === 'ScheduleDecl') out.push(withTrailing(scheduleText(raw, item), attached));
    else if (item.kind === 'ClusterBudget') out.push(withTrailing(clusterBudgetText(raw, item), attached));
    else emitPolicy(out, raw, item, bodies.get(item)!, attached);
  });
  const lastLine = items.length > 0 ? items[items.length - 1]!.range.end.line : undefined;
  emitDangling(out, top.dangling, lastLine, '');
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}

function emitPolicy(
  out: string[],
  raw: RawText,
  policy: Policy,
  body: { open: Range; comments: Comment[] },
  attached: Attached,
): void {
  const header: Range = { start: policy.range.start, end: body.open.end };
  const units = [header, ...policy.statements.map((s) => s.range)];
  const inner = attachComments(body.comments, units);
  out.push(withTrailing(policyHeaderText(raw, policy), inner.units[0]!));
  policy.statements.forEach((stmt, j) => {
    const mine = inner.units[j + 1]!;
    const startLine = Math.min(stmt.range.start.line, ...mine.leading.map((c) => c.range.start.line));
    if (j > 0 && startLine - units[j]!.end.line > 1) out.push('');
    emitLeading(out, mine.leading, stmt.range, INDENT);
    out.push(withTrailing(INDENT + statementText(raw, stmt), mine));
  });
  const lastLine = policy.statements.length > 0 ? units[units.length - 1]!.end.line : undefined;
  emitDangling(out, inner.dangling, lastLine, INDENT);
  out.push(withTrailing('}', attached));
}

function withTrailing(line: string, attached: Attached): string {
  return attached.trailing ? `${line} ${commentText(attached.trailing)}` : line;
}

function commentText(comment: Comment): string {
  return comment.text.trimEnd();
}

/** Leading comments keep at most one blank line between each other and before their unit. */
function emitLeading(out: string[], comments: Comment[], unit: Range, indent: string): void {
  comments.forEach((c, k) => {
    const next = comments[k + 1]?.range.start.line ?? unit.start.line;
    out.push(indent + commentText(c));
    if (next - c.range.start.line > 1) out.push('');
  });
}

/** Comments after the last unit; a blank line before them only if the source had one. */
function emitDangling(out: string[], comments: Comment[], afterLine: number | undefined, indent: string): void {
  let previous = afterLine;
  for (const c of comments) {
    if (previous !== undefined && c.range.start.line - previous > 1) out.push('');
    out.push(indent + commentText(c));
    previous = c.range.start.line;
  }
}

/** The `{` after a policy's target: only blanks and comments can come between them. */
function openBraceRange(text: string, policy: Policy): Range {
  let i = policy.target.range.end.offset;
  while (i < text.length && text[i] !== '{') {
    if (text[i] === '#' || text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
    } else i++;
  }
  const start = positionFrom(text, policy.target.range.end, i);
  return { start, end: { line: start.line, character: start.character + 1, offset: i + 1 } };
}

/** Walks from a known position to `offset` (no line index needed for the short distance). */
function positionFrom(text: string, from: Range['end'], offset: number): Range['end'] {
  let { line, character } = from;
  for (let i = from.offset; i < offset; i++) {
    const c = text[i];
    if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) {
      line++;
      character = 0;
    } else if (c !== '\r') character++;
  }
  return { line, character, offset };
}
