// SPDX-License-Identifier: Apache-2.0
// Golden files at the grammar boundary. test/golden/parse/NAME.kpol → NAME.ast.txt, plus
// NAME.errors.txt when it has diagnostics (only `bad-*` inputs may). test/golden/fmt/NAME.kpol →
// NAME.formatted.kpol, which must itself be a fixed point and parse to the same AST.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatSource } from '../../grammar/format.js';
import { parse } from '../../grammar/parse.js';
import { printAst } from '../../grammar/print-ast.js';
import { renderDiagnostics } from '../../grammar/print-diagnostics.js';
import { expectGolden } from '../support/golden.js';
import { withoutRanges } from './support/without-ranges.js';

const root = new URL('../golden/', import.meta.url).pathname;
const inputs = (dir: string): string[] =>
  readdirSync(join(root, dir))
    .filter((f) => f.endsWith('.kpol') && !f.endsWith('.formatted.kpol'))
    .sort();

describe('parse goldens', () => {
  it.each(inputs('parse'))('%s', (file) => {
    const base = join(root, 'parse', file.replace(/\.kpol$/, ''));
    const text = readFileSync(join(root, 'parse', file), 'utf8');
    const { value, diagnostics } = parse(text);
    expectGolden(`${base}.ast.txt`, printAst(value));
    if (file.startsWith('bad-')) {
      expect(diagnostics.length).toBeGreaterThan(0);
      expectGolden(`${base}.errors.txt`, renderDiagnostics(file, text, diagnostics));
    } else {
      expect(renderDiagnostics(file, text, diagnostics)).toBe('');
    }
  });
});

describe('fmt goldens', () => {
  it.each(inputs('fmt'))('%s', (file) => {
    const text = readFileSync(join(root, 'fmt', file), 'utf8');
    const formatted = formatSource(text);
    expect(formatted.diagnostics).toEqual([]);
    expectGolden(join(root, 'fmt', file.replace(/\.kpol$/, '.formatted.kpol')), formatted.value!);
    expect(formatSource(formatted.value!).value).toBe(formatted.value);
    expect(withoutRanges(parse(formatted.value!).value)).toEqual(withoutRanges(parse(text).value));
  });
});
