// SPDX-License-Identifier: Apache-2.0
// Policies parsed before the first syntax error are lowered at once (grammar/lower.ts
// `EarlyPolicies`); the AST and every diagnostic must be those of lowering the whole CST at the
// end, wherever in the file the errors are.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenize } from '../../grammar/lexer.js';
import { parse } from '../../grammar/parse.js';
import { parseTokens } from '../../grammar/parser.js';
import { checkSource } from '../../rules/checks/check.js';
import { generatePolicy } from '../bench/generate.js';

const root = new URL('../golden/parse/', import.meta.url).pathname;
const goldens = readdirSync(root)
  .filter((f) => f.endsWith('.kpol'))
  .sort()
  .map((f) => [f, readFileSync(join(root, f), 'utf8')] as const);

const generated = generatePolicy(600).split('\n');
/** The generated policies with `line` put in place of line `at` (or inserted before it). */
function withLine(at: number, line: string, replace = true): string {
  const lines = [...generated];
  lines.splice(at, replace ? 1 : 0, line);
  return lines.join('\n');
}

const mistakes: Array<readonly [string, string]> = [
  ['clean', generated.join('\n')],
  ['unknown statement midway', withLine(300, '  budgte 5')],
  ['left-over words midway', withLine(300, '  budget 1 fro Empty')],
  ['missing brace midway', withLine(301, '')],
  ['syntax error midway', withLine(300, '  expire after')],
  ['syntax errors midway and later', withLine(300, '  expire after').replace('budget 5\n}', 'budget 5 for\n}')],
  ['unterminated string midway', withLine(300, '  timezone "Europe/Berlin')],
  ['unexpected character midway', withLine(300, '  budget 5 @')],
  ['spaced percent midway', withLine(300, '  budget 10 % for Empty')],
  ['junk at top level midway', withLine(302, 'nonsense here', false)],
  ['error in the first policy', withLine(4, '  expire after')],
  ['error in the last policy', withLine(generated.length - 3, '  pods where app = disruptable')],
  ['unknown statement without syntax error', withLine(300, '  frobnicate the nodes')],
];

describe('lowering while parsing', () => {
  it.each([...goldens, ...mistakes])('%s: the same AST and diagnostics as lowering at the end', (_name, text) => {
    // The Chevrotain path on both sides: a clean file would otherwise take the fast path (fast-parse.test.ts).
    const early = parse(text, { fastPath: false });
    const whole = parse(text, { lowerWhileParsing: false, fastPath: false });
    expect(early.value).toEqual(whole.value);
    expect(early.diagnostics).toEqual(whole.diagnostics);
    expect(early.omitted).toEqual(whole.omitted);
  });

  it.each(mistakes.slice(1))('%s is reported', (name, text) => {
    expect(parse(text).diagnostics).not.toEqual([]);
    // The syntax errors midway leave policies on both sides: lowered early, and from the CST.
    if (name.includes('midway') && parseTokens(tokenize(text).tokens).errors.length > 0) {
      let early = 0;
      const { cst } = parseTokens(tokenize(text).tokens, () => early++);
      expect(early).toBeGreaterThan(0);
      expect(cst.children.policy?.length).toBeGreaterThan(0);
    }
  });

  it('hands over the policies before the first error and keeps the rest in the CST', () => {
    const names: string[] = [];
    const text = withLine(300, '  budget 5 @@ for');
    const { cst, errors } = parseTokens(tokenize(text).tokens, (node) =>
      names.push(node.children.Identifier![0]!.image),
    );
    const firstError = Math.min(...errors.map((e) => e.token.startOffset));
    const before = [...text.slice(0, firstError).matchAll(/^policy (\S+)/gm)].map((m) => m[1]);
    expect(names).toEqual(before.slice(0, -1)); // the policy holding the error stays in the CST
    expect(cst.children.policy!.length).toBe(generated.filter((l) => l.startsWith('policy ')).length - names.length);
  });

  it('lowers the policies of a clean generated file, with no diagnostics', () => {
    const { value, diagnostics } = parse(generated.join('\n'));
    expect(diagnostics).toEqual([]);
    expect(value.policies.length).toBe(generated.filter((l) => l.startsWith('policy ')).length);
    expect(checkSource(generated.join('\n')).diagnostics).toEqual([]);
  });
});
