// SPDX-License-Identifier: Apache-2.0
// The worker's incremental check gives exactly what the controller's loadPolicies gives for the
// same texts — every diagnostic, range and order — on the examples, on a generated 1,000-line
// policy and after random edits (fast-check) to several files checked together, while
// re-checking only the policies whose text changed. A checker with a planted bug (its cache
// ignores the schedules a policy may name) is caught by the same property.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IncrementalChecker, type FilePieces, type SourceText } from '../../editor/src/incremental-check.js';
import type { ParsedPiece } from '../../editor/src/chunked-parse.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { MAX_DIAGNOSTICS } from '../../grammar/diagnostic-limit.js';
import { generatePolicy } from '../bench/generate.js';

const EXAMPLES = new URL('../../rules/examples/', import.meta.url).pathname;
const examples = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith('.kpol'))
  .map((f) => readFileSync(join(EXAMPLES, f), 'utf8'));
const NOW = Date.parse('2026-11-22T12:00:00Z');

// Two files sharing names, so that the cross-file stages have something to say after edits.
const shared = [
  'schedule nightly = "0 1 * * mon-fri" for 4h in "Europe/Berlin"',
  'schedule spare = "@daily" for 1h',
  '',
  'policy a for nodepool p1, p2 {',
  '  budget 10% for Empty, Drifted',
  '  allow 3 Drifted only during nightly',
  '  freeze Drifted from "2026-11-26 00:00" to "2026-12-01 00:00"',
  '}',
  '',
  'policy b for nodepool p3 {',
  '  budget 5',
  '  window w blocks Underutilized during nightly',
  '}',
  '',
].join('\n');
const other = 'policy c for nodepool p4 {\n  budget 1\n}\n';

// Whole lines (inserted at a line start) keep most edits parseable, so the piecewise path is what gets tested.
const LINES = [
  '  budget 5 during nightly\n',
  '  budget 0 during nightly for 0m\n',
  '  expire after 720h\n',
  '  expire after 1h\n',
  '  consolidate when empty after 5m\n',
  '  freeze from "2020-01-01 00:00" to "2020-01-02 00:00"\n',
  '  window w blocks Drifted during spare\n',
  '  pods where app = "x" disruptable only during nightly\n',
  '  allow 2 Empty only during "@hourly" for 1h\n',
  'schedule nightly = "0 1 * * *" for 0m\n',
  'schedule spare = "0 0 30 2 *" for 1h\n',
  'schedule nightly = "0 1 * * *" for 90d\n',
  'policy a for nodepool p1 {\n  budget 1\n}\n',
  'policy d for nodepool p3, p4 {\n  budget 2 during nightly\n}\n',
  '\n',
];
const CHARS = ['x', ' ', '\n', '}', '"', '0', 'policy ', '#'];

type Edit = [file: number, kind: 'line' | 'char', at: number, del: number, pick: number];

function applyEdit(texts: string[], [file, kind, at, del, pick]: Edit): string[] {
  const out = [...texts];
  const text = out[file % out.length];
  if (kind === 'line') {
    const line = LINES[pick % LINES.length];
    // A statement goes inside a policy body, a declaration between them (when there is such a place).
    const fits = (i: number) => {
      const before = text.slice(0, i).split('\n').at(-2) ?? '';
      const inBody = before.endsWith('{') || before.startsWith('  ');
      return line.startsWith('  ') ? inBody : !inBody;
    };
    const starts = [0, ...[...text.matchAll(/\n/g)].map((m) => m.index! + 1)];
    const fitting = starts.filter(fits);
    const i = (fitting.length > 0 ? fitting : starts)[at % (fitting.length || starts.length)];
    out[file % out.length] = text.slice(0, i) + line + text.slice(i);
  } else {
    const i = at % (text.length + 1);
    out[file % out.length] = text.slice(0, i) + CHARS[pick % CHARS.length] + text.slice(i + (del % 3));
  }
  return out;
}

const sources = (texts: string[]): SourceText[] => texts.map((text, i) => ({ fileName: `f${i}.kpol`, text }));
const expected = (texts: string[], nowMs: number) =>
  loadPolicies(sources(texts), nowMs).files.map((f) => f.diagnostics);

const edits = fc.array(
  fc.tuple(
    fc.nat(1),
    fc.constantFrom<'line' | 'char'>('line', 'line', 'line', 'line', 'char'),
    fc.nat(),
    fc.nat(),
    fc.nat(),
  ),
  { minLength: 1, maxLength: 6 },
);

/** After each edit the same checker (with what it cached) answers as loadPolicies does. */
function sameAfterEdits(make: () => IncrementalChecker) {
  return fc.property(edits, fc.boolean(), (list, late) => {
    const checker = make();
    let texts = [shared, other];
    let nowMs = NOW;
    checker.check(sources(texts), { nowMs });
    for (const [n, e] of list.entries()) {
      texts = applyEdit(texts, e);
      // Once, the clock passes the freeze: its "in the past" note must follow.
      if (late && n === 1) nowMs = Date.parse('2027-01-01T00:00:00Z');
      expect(checker.check(sources(texts), { nowMs })).toEqual(expected(texts, nowMs));
    }
  });
}

/** The planted bug: pieces cached by their text alone, as if nothing outside a policy mattered. */
class TextOnlyKey extends IncrementalChecker {
  protected override pieceKey(_f: FilePieces, piece: ParsedPiece): [string, string] {
    return ['', piece.text];
  }
}

describe('incremental check', () => {
  it.each([...examples, generatePolicy(300), shared].map((t, i) => [i, t]))(
    'text %i gives the diagnostics loadPolicies gives',
    (_, text) => {
      const checker = new IncrementalChecker();
      expect(checker.check(sources([text]), { nowMs: NOW })).toEqual(expected([text], NOW));
    },
  );

  it('keeps at most MAX_DIAGNOSTICS per file, as loadPolicies does, with and without syntax errors', () => {
    const misspelt = `policy t for nodepool p {\n${'  budget 1 for Drifed\n'.repeat(MAX_DIAGNOSTICS + 50)}}\n`;
    const broken = `${misspelt}policy policy\n`;
    for (const text of [misspelt, broken]) {
      const got = new IncrementalChecker().check(sources([text]), { nowMs: NOW });
      expect(got[0]).toHaveLength(MAX_DIAGNOSTICS);
      expect(got).toEqual(expected([text], NOW));
    }
  });

  it('files checked together: duplicate names and NodePools across files, reported in each', () => {
    const texts = [
      shared,
      `${other}policy a for nodepool p9 {\n  budget 1\n}\npolicy e for nodepool p2 {\n  budget 1\n}\n`,
    ];
    const got = new IncrementalChecker().check(sources(texts), { nowMs: NOW });
    expect(got).toEqual(expected(texts, NOW));
    expect(got[1].map((d) => d.code)).toEqual(expect.arrayContaining(['KPOL2011', 'KPOL2012']));
  });

  it('cluster and selector budgets (issue 15): the same reports as loadPolicies, placed in the whole file', () => {
    const fleet =
      'schedule nights = "0 1 * * *" for 4h\n\ncluster budget 2 for Drifted on nodepools p1, p9, p1x\n\n' +
      'policy a for nodepool p1 {\n  budget 1\n}\n\ncluster budget 1 for Drifed during nights\n\n' +
      'policy b for nodepool p2 {\n  budget 1 on nodes where karpenter.sh/nodepool in (p2, p9)\n  budget 2\n}\n';
    const texts = [fleet, 'cluster budget 3\n'];
    const got = new IncrementalChecker().check(sources(texts), { nowMs: NOW });
    expect(got).toEqual(expected(texts, NOW));
    expect(got[0].map((d) => d.code)).toEqual(['KPOL2050', 'KPOL2050', 'KPOL2001', 'KPOL2052']);
    expect(got[1].map((d) => d.code)).toEqual(['KPOL2051']);
    // The schedule a cluster budget uses is not unused.
    expect(got[0].map((d) => d.code)).not.toContain('KPOL3009');
  });

  it('re-checks only the policy that changed', () => {
    const checker = new IncrementalChecker();
    const text = generatePolicy(1000);
    checker.check(sources([text]));
    const edited = text.replace('  budget 5\n', '  budget 5 \n');
    expect(checker.check(sources([edited]))).toEqual([[]]);
    expect(checker.lastChecked).toBe(1);
    checker.check(sources([text]));
    expect(checker.lastChecked).toBe(1);
  });

  it('equals loadPolicies after random edits to files checked together', () => {
    fc.assert(
      sameAfterEdits(() => new IncrementalChecker()),
      { numRuns: 200 },
    );
  });

  it('the same property catches a checker whose cache ignores the schedules (a planted bug)', () => {
    const out = fc.check(
      sameAfterEdits(() => new TextOnlyKey()),
      { numRuns: 400 },
    );
    expect(out.failed).toBe(true);
  });
});
