// SPDX-License-Identifier: Apache-2.0
// Issue 13, defect 1 beyond durations: the checker bounds every count and instant to what
// Karpenter and the evaluator hold, with a located error that names the limit.
import { describe, expect, it } from 'vitest';
import { checkSource } from '../../../rules/checks/check.js';

const errorsOf = (body: string) => {
  const text = `policy p for nodepool default {\n  ${body}\n}\n`;
  return checkSource(text, 'p.kpol')
    .diagnostics.filter((d) => d.severity === 'error')
    .map((d) => ({
      code: d.code,
      at: text.slice(d.range.start.offset, d.range.end.offset),
    }));
};

describe('budget node counts', () => {
  it('take at most int32, which Karpenter reads as unlimited', () => {
    expect(errorsOf('budget 2147483647')).toEqual([]);
    expect(errorsOf('budget 2147483648')).toEqual([{ code: 'KPOL2034', at: '2147483648' }]);
    expect(errorsOf('budget 9007199254740991 for Drifted')).toEqual([{ code: 'KPOL2034', at: '9007199254740991' }]);
    expect(errorsOf('allow 4294967296 Drifted only during "@daily" for 1h')).toEqual([
      { code: 'KPOL2034', at: '4294967296' },
    ]);
  });
});

describe('freeze instants', () => {
  it('take RFC 3339 offsets of at most 23:59', () => {
    expect(errorsOf('freeze from "2026-12-01T00:00:00+23:59" to "2026-12-02T00:00:00-23:59"')).toEqual([]);
    expect(errorsOf('freeze from "2026-12-01T00:00:00+24:00" to "2026-12-02T00:00:00Z"')).toEqual([
      { code: 'KPOL2014', at: '"2026-12-01T00:00:00+24:00"' },
    ]);
    expect(errorsOf('freeze from "2026-12-01T00:00:00Z" to "2026-12-02T00:00:00-00:60"')).toEqual([
      { code: 'KPOL2014', at: '"2026-12-02T00:00:00-00:60"' },
    ]);
  });
});
