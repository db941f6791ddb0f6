// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import type { Statement } from '../../grammar/ast.js';
import { parse } from '../../grammar/parse.js';

const at = (d: { code: string; range: { start: { line: number; character: number } } }): string =>
  `${d.code}@${d.range.start.line + 1}:${d.range.start.character + 1}`;

const kinds = (statements: Statement[]): string[] => statements.map((s) => s.kind);

function body(lines: string[]): string {
  return ['policy p for nodepool default {', ...lines.map((l) => `  ${l}`), '}', ''].join('\n');
}

describe('parse recovery', () => {
  it('keeps statements 1 and 3 when statement 2 is broken', () => {
    const { value, diagnostics } = parse(body(['budget 5', 'expire after soon gracefully', 'termination grace 24h']));
    expect(kinds(value.policies[0]!.statements)).toEqual(['Budget', 'TerminationGrace']);
    expect(diagnostics.map(at)).toEqual(['KPOL1003@3:16']);
    expect(diagnostics[0]!.message).toBe('expected a duration or `never` but found `soon`');
  });

  it('reports an unknown statement once and resynchronises at the next keyword', () => {
    const { value, diagnostics } = parse(body(['budget 5', 'drain all the nodes', 'consolidate never']));
    expect(kinds(value.policies[0]!.statements)).toEqual(['Budget', 'Consolidate']);
    expect(diagnostics.map((d) => [at(d), d.message])).toEqual([['KPOL1005@3:3', 'unknown statement `drain`']]);
  });

  it('reports left-over words on a statement line as expecting the end of the statement', () => {
    const { value, diagnostics } = parse(body(['budget 5 Drifted', 'budget 1']));
    // `budget 5 Drifted` is not the `budget 5` it would lower to: it is left out.
    expect(kinds(value.policies[0]!.statements)).toEqual(['Budget']);
    expect(value.policies[0]!.statements[0]!.range.start.line).toBe(2);
    expect(diagnostics.map((d) => [at(d), d.message])).toEqual([
      ['KPOL1003@2:12', 'expected the end of the statement but found `Drifted`'],
    ]);
  });

  it('skips a statement whose required part is missing and names what was expected', () => {
    const { value, diagnostics } = parse(body(['budget for Empty', 'allow 3 Drifted during nightly', 'budget 2']));
    expect(kinds(value.policies[0]!.statements)).toEqual(['Budget']);
    expect(value.policies[0]!.statements[0]!.range.start.line).toBe(3);
    expect(diagnostics.map((d) => [at(d), d.message])).toEqual([
      ['KPOL1003@2:10', 'expected a node count or percentage but found `for`'],
      ['KPOL1003@3:19', 'expected `only` but found `during`'],
    ]);
  });

  it('reports a missing `}` at the end of input right after the last token', () => {
    const { value, diagnostics } = parse('policy p for nodepool a {\n  budget 5\n');
    expect(kinds(value.policies[0]!.statements)).toEqual(['Budget']);
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'KPOL1004',
        message: 'unexpected end of input, expected `}`',
        range: { start: { line: 1, character: 10, offset: 36 }, end: { line: 1, character: 10, offset: 36 } },
      }),
    ]);
  });

  it('reports a missing `}` before the next policy and still parses that policy', () => {
    const { value, diagnostics } = parse(
      'policy a for nodepool a {\n  budget 5\npolicy b for nodepool b { budget 1 }\n',
    );
    expect(value.policies.map((p) => p.name.text)).toEqual(['a', 'b']);
    expect(diagnostics.map((d) => [at(d), d.message])).toEqual([['KPOL1003@3:1', 'expected `}` but found `policy`']]);
  });

  it('reports unknown top-level text and parses the next policy', () => {
    const { value, diagnostics } = parse('budget 5\npolicy b for nodepool b { budget 1 }\n');
    expect(value.policies.map((p) => p.name.text)).toEqual(['b']);
    expect(diagnostics.map((d) => [at(d), d.message])).toEqual([
      ['KPOL1003@1:1', 'expected `policy` or `schedule` but found `budget`'],
    ]);
  });

  it('reports a fractional budget as not a whole number and skips it', () => {
    const { value, diagnostics } = parse(body(['budget 1.5', 'budget 2.5%', 'budget 3']));
    expect(kinds(value.policies[0]!.statements)).toEqual(['Budget']);
    expect(diagnostics.map((d) => [at(d), d.message])).toEqual([
      ['KPOL1006@2:10', '`1.5` is not a whole number'],
      ['KPOL1006@3:10', '`2.5%` is not a whole number'],
    ]);
  });

  it('does not pile a parse error on top of an unterminated string', () => {
    const { value, diagnostics } = parse(body(['timezone "Europe/Berlin', 'budget 5 "x', 'budget 1']));
    expect(kinds(value.policies[0]!.statements)).toEqual(['TimeZone', 'Budget']); // `budget 5 "x` has a word left over
    expect(diagnostics.map(at)).toEqual(['KPOL1002@2:12', 'KPOL1002@3:12']);
  });

  it('returns diagnostics sorted by position', () => {
    const { diagnostics } = parse('x\npolicy p for nodepool a { budget ? 1 }\n@');
    const offsets = diagnostics.map((d) => d.range.start.offset);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect(diagnostics.length).toBeGreaterThanOrEqual(3);
  });
});
