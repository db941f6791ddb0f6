// SPDX-License-Identifier: Apache-2.0
import type { Diagnostic } from '../../../grammar/diagnostic.js';
import { checkSource } from '../../../rules/checks/check.js';

/** Wraps statements in a policy; statement lines start at line 2, column 3. */
export function inPolicy(...statements: string[]): string {
  return `policy p for nodepool default {\n${statements.map((s) => `  ${s}\n`).join('')}}\n`;
}

export function diagnosticsOf(text: string, nowMs?: number): Diagnostic[] {
  return checkSource(text, 'test.kpol', nowMs === undefined ? {} : { nowMs }).diagnostics;
}

/** 1-based `line:col` of a diagnostic's start. */
export function at(d: Diagnostic): string {
  return `${d.range.start.line + 1}:${d.range.start.character + 1}`;
}

/** The source text a diagnostic's range covers. */
export function covered(text: string, d: Diagnostic): string {
  return text.slice(d.range.start.offset, d.range.end.offset);
}

/** 1-based `line:col` of the `nth` occurrence (1 = first) of `token` in `text`. */
export function positionOf(text: string, token: string, nth = 1): string {
  let offset = -1;
  for (let i = 0; i < nth; i++) offset = text.indexOf(token, offset + 1);
  if (offset < 0) throw new Error(`\`${token}\` not in text`);
  const before = text.slice(0, offset).split('\n');
  return `${before.length}:${before[before.length - 1].length + 1}`;
}
