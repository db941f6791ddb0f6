// SPDX-License-Identifier: Apache-2.0
// The example policies in rules/examples/ are documentation that must stay true: every fixture
// passes through the real CLI, every policy checks clean and is canonically formatted, and a
// deliberately broken copy of a fixture fails with a diff (so the runner cannot pass silently).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Output } from '../../src/edge/cli/shared/io.js';
import { main } from '../../src/edge/cli/main.js';

const EXAMPLES = new URL('../../rules/examples/', import.meta.url).pathname;
const policies = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith('.kpol'))
  .sort();
const fixtures = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith('.test.yaml'))
  .sort();

/** Runs the CLI in-process and captures what it prints. */
async function kpol(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: Output = { out: (t) => out.push(t), err: (t) => err.push(t), isTTY: false };
  const code = await main(argv, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1);
const caseCount = (file: string) => (parseYaml(readFileSync(file, 'utf8')) as { cases: unknown[] }).cases.length;

describe('rules/examples', () => {
  it('has one policy per seed scenario, each with its fixture, plus the plain-Karpenter fixture', () => {
    expect(policies).toEqual([
      'business-hours.kpol',
      'drift-at-night-berlin.kpol',
      'empty-anytime-underutilized-at-night.kpol',
      'fleet-drift.kpol',
      'graceful-expiry.kpol',
      'holiday-freeze.kpol',
      'pods-never-underutilized.kpol',
      'reason-buckets.kpol',
      'steady-rollout.kpol',
      'weekend-ml.kpol',
      'zone-freeze.kpol',
    ]);
    for (const p of policies) expect(fixtures).toContain(p.replace(/\.kpol$/, '.test.yaml'));
    expect(fixtures).toContain('karpenter-docs.test.yaml');
  });

  it('`kpol test rules/examples` passes every case', async () => {
    const total = fixtures.reduce((n, f) => n + caseCount(join(EXAMPLES, f)), 0);
    const { code, out } = await kpol('test', EXAMPLES);
    expect(out).not.toContain('✗');
    expect(lastLine(out)).toBe(`${total} passed, 0 failed`);
    expect(code).toBe(0);
    expect(total).toBeGreaterThanOrEqual(3 * fixtures.length);
  });

  it.each(policies)('`kpol check %s` reports no errors or warnings', async (file) => {
    const { code, out } = await kpol('check', '--format', 'json', join(EXAMPLES, file));
    const report = JSON.parse(out) as {
      ok: boolean;
      files: { diagnostics: { severity: string; code: string; message: string }[] }[];
    };
    const findings = report.files
      .flatMap((f) => f.diagnostics)
      .filter((d) => d.severity === 'error' || d.severity === 'warning');
    expect(findings).toEqual([]);
    expect(report.ok).toBe(true);
    expect(code).toBe(0);
  });

  it.each(policies)('`kpol fmt --check %s` finds it canonical', async (file) => {
    const { code, out } = await kpol('fmt', '--check', join(EXAMPLES, file));
    expect(out).toBe('');
    expect(code).toBe(0);
  });

  describe('negative control', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kpol-examples-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('a fixture with one wrong number fails with a diff naming the path', async () => {
      const source = join(EXAMPLES, 'karpenter-docs.test.yaml');
      const doc = parseYaml(readFileSync(source, 'utf8')) as {
        policies: string[];
        cluster: string;
        cases: { expect: { nodePools: Record<string, { budgets: Record<string, number> }> } }[];
      };
      expect(doc.cases[0].expect.nodePools.default.budgets.Underutilized).toBe(5);
      doc.cases[0].expect.nodePools.default.budgets.Underutilized = 6;
      doc.cluster = resolve(EXAMPLES, doc.cluster);
      const broken = join(dir, 'broken.test.yaml');
      writeFileSync(broken, JSON.stringify(doc));

      const { code, out } = await kpol('test', broken);
      expect(code).toBe(1);
      expect(out).toContain('✗ karpenter-docs › midday, outside the @daily window @ 2026-11-23T12:00:00Z');
      expect(out).toContain('    nodePools.default.budgets.Underutilized\n      - expected: 6\n      + actual:   5');
      expect(lastLine(out)).toBe(`${doc.cases.length - 1} passed, 1 failed`);
    });
  });
});
