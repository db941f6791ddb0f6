// SPDX-License-Identifier: Apache-2.0
// Fuzz: 1,040 mutated snapshots (fixed seeds) through `kpol eval --cluster` in-process — the
// CLI's own entry point, so its error formatting is judged too. Every run must exit 0 or 1,
// never print "internal error" or a stack, and locate every message (issue 13). A failure
// prints the seed, the path and the shrunk case; the longer run is test/fuzz/long-snapshots.ts.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { caseText, describeCase, judge, snapshotCase, SnapshotRunner } from './snapshot-mutations.js';

const runner = new SnapshotRunner();
afterAll(() => runner.close());

describe('mutated snapshots through kpol eval --cluster', () => {
  it('the unmutated snapshot evaluates cleanly (so a mutation is what any error comes from)', async () => {
    const v = await runner.run(caseText({ mutations: [], format: 'json', text: { op: 'none' } }).text, 'json');
    expect(v).toEqual({ code: 0, stderr: '' });
  });

  it('the judge refuses what the fuzz must never see', () => {
    expect(judge(70, 'kpol eval: internal error: x\n').problem).toBe('internal error');
    expect(judge(2, 'kpol eval: s.json:1:1: x\n').problem).toBe('exit 2');
    expect(judge(1, 'kpol eval: conditions?.find is not a function\n').problem).toMatch(/^unlocated/);
    expect(
      judge(1, 'kpol eval: s.json: Node/n: status.conditions: must be a list, found string\n').problem,
    ).toBeUndefined();
    expect(judge(1, 'kpol eval: s.json:3:7: values nest deeper than 200 levels\n').problem).toBeUndefined();
  });

  // Four seeds of 260: a failure names a seed that reproduces alone.
  it.each([1, 2, 3, 4].map((k) => 0x6b706f6c + k))(
    'seed %i: 260 cases, 0 crashes, 0 internal errors, 0 unlocated messages',
    async (seed) => {
      const seen = { ok: 0, rejected: 0 };
      const failures: string[] = [];
      // fc.check, not fc.assert: the report is ours, with long strings cut (a counterexample can hold 200 KB)
      const details = await fc.check(
        fc.asyncProperty(snapshotCase, async (c) => {
          const { text, ext } = caseText(c);
          const v = await runner.run(text, ext);
          if (v.problem) {
            failures.push(`${v.problem}\nexit ${v.code}\n${v.stderr.slice(0, 1000)}\ncase ${describeCase(c)}`);
            return false;
          }
          seen[v.code === 0 ? 'ok' : 'rejected']++;
          return true;
        }),
        { seed, numRuns: 260, endOnFailure: true },
      );
      const thrown =
        details.errorInstance instanceof Error
          ? `${details.errorInstance.stack ?? details.errorInstance.message}`.slice(0, 2000)
          : '';
      const report = `seed ${seed} path ${details.counterexamplePath}: ${failures[0] ?? `threw ${thrown}`}`;
      expect(details.failed ? report : 'no failure').toBe('no failure');
      // both outcomes occur: the mutations reach the shape check, and not everything is refused
      expect(seen.ok).toBeGreaterThan(20);
      expect(seen.rejected).toBeGreaterThan(20);
    },
    120_000,
  );
});
