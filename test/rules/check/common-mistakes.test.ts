// SPDX-License-Identifier: Apache-2.0
// The diagnostics golden set: common mistakes (misspellings, crons value by value, zones, units,
// percentages), each a small .kpol text in test/golden/diagnostics/GROUP.cases after a line
// `=== NAME`, with what `kpol check` says about it — message, range, help and quick fix — in
// GROUP.errors.txt. Update with `npm run golden:update` and review every change.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../../grammar/diagnostic.js';
import { renderDiagnostics } from '../../../grammar/print-diagnostics.js';
import { checkSource } from '../../../rules/checks/check.js';
import { expectGolden } from '../../support/golden.js';

const DIR = new URL('../../golden/diagnostics/', import.meta.url).pathname;
const groups = readdirSync(DIR)
  .filter((f) => f.endsWith('.cases'))
  .sort();

interface Case {
  name: string;
  text: string;
}

function casesOf(group: string): Case[] {
  const text = readFileSync(join(DIR, group), 'utf8');
  return text
    .split(/^=== /m)
    .slice(1)
    .map((chunk) => {
      const newline = chunk.indexOf('\n');
      return { name: chunk.slice(0, newline).trim(), text: chunk.slice(newline + 1) };
    });
}

const diagnosticsOf = (text: string, name = 'case.kpol') => checkSource(text, name).diagnostics;
const applyFix = (text: string, d: Diagnostic) =>
  text.slice(0, d.range.start.offset) + d.fix! + text.slice(d.range.end.offset);

describe('common mistakes', () => {
  it('cover at least 30 mistakes, each with a diagnostic', () => {
    const all = groups.flatMap(casesOf);
    expect(all.length).toBeGreaterThanOrEqual(30);
    expect(new Set(all.map((c) => c.name)).size).toBe(all.length);
    for (const c of all) expect(diagnosticsOf(c.text), c.name).not.toEqual([]);
  });

  it.each(groups)('%s', (group) => {
    const rendered = casesOf(group).map(({ name, text }) => {
      const file = `${name}.kpol`;
      return `=== ${name}\n${renderDiagnostics(file, text, diagnosticsOf(text, file), { fixes: true })}`;
    });
    expectGolden(join(DIR, group.replace(/\.cases$/, '.errors.txt')), rendered.join(''));
  });

  it.each(groups)('%s: every quick fix removes its diagnostic and leaves fewer errors', (group) => {
    for (const { name, text } of casesOf(group)) {
      const before = diagnosticsOf(text);
      for (const d of before.filter((x) => x.fix !== undefined)) {
        const after = diagnosticsOf(applyFix(text, d));
        const same = (x: Diagnostic) => x.code === d.code && x.range.start.offset === d.range.start.offset;
        expect(after.filter(same), `${name}: ${d.message}`).toEqual([]);
        const errors = (ds: Diagnostic[]) => ds.filter((x) => x.severity === 'error').length;
        expect(errors(after), `${name}: ${d.message}`).toBeLessThan(errors(before));
      }
    }
  });
});
