// SPDX-License-Identifier: Apache-2.0
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSource } from '../../../rules/checks/check.js';

const VALID = `schedule nightly = "0 1 * * *" for 4h in "Europe/Berlin"
policy business-hours for nodepool default, gpu {
  timezone "Europe/Berlin"
  consolidate when empty or underutilized after 5m
  expire after 720h gracefully
  termination grace 24h
  budget 20% for Empty, Drifted
  budget 5
  budget 0 for Underutilized during "@daily" for 10m
  allow 3 Drifted only during nightly
  freeze Drifted from "2026-12-20 00:00" to "2027-01-02 00:00"
  pods where app = "ml-training" in namespace ml disruptable only during "0 2 * * sat" for 6h
  window zone-a blocks Underutilized, Drifted on nodes where topology.kubernetes.io/zone in (us-west-2a) \
during "0 9 * * 1-5" for 8h
}
`;

const WORDS = [
  'policy',
  'for',
  'nodepool',
  'nodepools',
  'where',
  'budget',
  'allow',
  'only',
  'during',
  'freeze',
  'from',
  'to',
  'in',
  'pods',
  'disruptable',
  'never',
  'window',
  'blocks',
  'on',
  'nodes',
  'schedule',
  'timezone',
  'consolidate',
  'when',
  'empty',
  'or',
  'underutilized',
  'balanced',
  'after',
  'expire',
  'gracefully',
  'termination',
  'grace',
  'Empty',
  'Drifted',
  'Underutilized',
  'Expired',
  'drifted',
  '{',
  '}',
  '(',
  ')',
  ',',
  '=',
  '!=',
  '!',
  '"',
  '"@daily"',
  '"0 0 * * 7"',
  '"0 0 30 2 *"',
  '"* * * * * *"',
  '"Europe/Berlin"',
  '"Mars/Base"',
  '"2026-12-20 00:00"',
  '"2026-02-30 00:00"',
  '5',
  '0',
  '101%',
  '20%',
  '1h',
  '0m',
  '90s',
  '8d',
  '500ms',
  'nightly',
  'a/b/c',
  'app',
  '#c',
  '\n',
  ' ',
  '\t',
  '"',
  '\\',
  'é',
  '😀',
];

function assertLocated(text: string): void {
  const { diagnostics } = checkSource(text, 'fuzz.kpol', { nowMs: 0 });
  for (const d of diagnostics) {
    expect(d.range.start.offset).toBeGreaterThanOrEqual(0);
    expect(d.range.start.offset).toBeLessThanOrEqual(d.range.end.offset);
    expect(d.range.end.offset).toBeLessThanOrEqual(text.length);
    expect(d.code).toMatch(/^KPOL\d{4}$/);
    expect(d.message.length).toBeGreaterThan(0);
  }
}

describe('checker robustness', () => {
  it('never throws on random text and keeps every range inside it', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => assertLocated(text)),
      { numRuns: 300 },
    );
  });

  it('never throws on token soup', () => {
    const soup = fc.array(fc.constantFrom(...WORDS), { maxLength: 80 }).map((ws) => ws.join(' '));
    fc.assert(
      fc.property(soup, (text) => assertLocated(text)),
      { numRuns: 400 },
    );
  });

  it('never throws on mutated valid policies', () => {
    const mutation = fc.record({
      at: fc.nat({ max: VALID.length }),
      cut: fc.nat({ max: 20 }),
      insert: fc.constantFrom(...WORDS),
    });
    const mutated = fc
      .array(mutation, { minLength: 1, maxLength: 6 })
      .map((ms) =>
        ms.reduce(
          (text, m) =>
            text.slice(0, Math.min(m.at, text.length)) + m.insert + text.slice(Math.min(m.at, text.length) + m.cut),
          VALID,
        ),
      );
    fc.assert(
      fc.property(mutated, (text) => assertLocated(text)),
      { numRuns: 400 },
    );
  });

  it('accepts the unmutated policy without errors', () => {
    expect(checkSource(VALID).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
});
