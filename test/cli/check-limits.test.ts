// SPDX-License-Identifier: Apache-2.0
// `kpol check` output stays small for any input: at most MAX_DIAGNOSTICS per file with a summary
// of the rest, in text and in JSON, and a window of each long line (issue 13, defect 2).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_DIAGNOSTICS } from '../../grammar/diagnostic-limit.js';
import { WINDOW_COLUMNS } from '../../grammar/line-window.js';
import { garbageLine } from '../support/garbage.js';
import { runCli } from './run-cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'kpol-check-limits-'));
const file = (name: string, text: string) => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};

describe('kpol check on a file of endless mistakes', () => {
  const pairs = 1000; // `policy policy` is one error: 1000 of them on one 14 KB line
  const many = file('many.kpol', 'policy policy '.repeat(pairs));

  it('prints the first diagnostics and says how many more there are', async () => {
    const r = await runCli('check', many);
    expect(r.code).toBe(1);
    expect(r.stderr.match(/^\S+:\d+:\d+: error /gm)).toHaveLength(MAX_DIAGNOSTICS);
    const more = pairs - MAX_DIAGNOSTICS;
    expect(r.stderr).toContain(`many.kpol: ${more} more diagnostics not shown (at most ${MAX_DIAGNOSTICS} per file)`);
    expect(r.stderr).toContain(`1 file(s): ${MAX_DIAGNOSTICS} error(s), 0 warning(s), ${more} more not shown`);
    for (const line of r.stderr.split('\n').filter((l) => l.startsWith('    policy') || l.startsWith('    …'))) {
      expect(line.length).toBeLessThanOrEqual(4 + WINDOW_COLUMNS);
    }
  });

  it('says the same in JSON: the diagnostics shown and a count of those omitted', async () => {
    const r = await runCli('check', '--format', 'json', many);
    expect(r.code).toBe(1);
    type Json = { ok: boolean; files: { file: string; diagnostics: unknown[]; omitted: number }[] };
    const out = JSON.parse(r.stdout) as Json;
    expect(out.ok).toBe(false);
    expect(out.files[0]!.diagnostics).toHaveLength(MAX_DIAGNOSTICS);
    expect(out.files[0]!.omitted).toBe(pairs - MAX_DIAGNOSTICS);
  });

  it('answers a 1 MB line of garbage with output of bounded size', async () => {
    const big = file('garbage.kpol', garbageLine(1 << 20));
    const text = await runCli('check', big);
    expect(text.code).toBe(1);
    expect(text.stderr.match(/^\S+:\d+:\d+: error /gm)).toHaveLength(MAX_DIAGNOSTICS);
    // Per diagnostic: a header, a window of the line, a squiggle and a help line.
    expect(text.stdout.length + text.stderr.length).toBeLessThan(MAX_DIAGNOSTICS * 600);
    const json = await runCli('check', '--format', 'json', big);
    expect(json.code).toBe(1);
    expect(json.stdout.length).toBeLessThan(MAX_DIAGNOSTICS * 1500);
    expect((JSON.parse(json.stdout) as { files: { omitted: number }[] }).files[0]!.omitted).toBeGreaterThan(1000);
  }, 60_000);

  it('quotes at most a window of a long name in a message, so a few diagnostics stay small too', async () => {
    const name = 'a'.repeat(100_000);
    const policy = (i: number) => `policy ${name} for nodepool x${i} {\n  budget 1 for ${name}\n}\n`;
    const text = Array.from({ length: 5 }, (_, i) => policy(i)).join('');
    const r = await runCli('check', file('long-name.kpol', text));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error KPOL2001: unknown disruption reason `a{79}…`/);
    expect(r.stderr).toMatch(/error KPOL2011: policy `a{79}…` is declared more than once/);
    expect(r.stdout.length + r.stderr.length).toBeLessThan(10 * 600);
  });

  it('kpol fmt and kpol compile print the same limited list with its summary', async () => {
    for (const command of ['fmt', 'compile']) {
      const r = await runCli(command, many);
      expect(r.code).toBe(1);
      expect(r.stderr.match(/^\S+:\d+:\d+: error /gm)).toHaveLength(MAX_DIAGNOSTICS);
      expect(r.stderr).toContain(`many.kpol: ${pairs - MAX_DIAGNOSTICS} more diagnostics not shown`);
    }
  });
});
