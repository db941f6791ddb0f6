// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { diagnostic } from '../../grammar/diagnostic.js';
import { LineIndex } from '../../grammar/positions.js';
import { renderDiagnostics } from '../../grammar/print-diagnostics.js';

describe('renderDiagnostics', () => {
  const text = 'policy p for nodepool a {\n\tbudget x\n}';
  const lines = new LineIndex(text);

  it('prints 1-based positions, the source line and a squiggle that follows tabs', () => {
    const d = diagnostic('unexpectedToken', lines.range(34, 35), {
      expected: 'a node count or percentage',
      found: 'x',
    });
    expect(renderDiagnostics('p.kpol', text, [d])).toBe(
      'p.kpol:2:9: error KPOL1003: expected a node count or percentage but found `x`\n' +
        '    \tbudget x\n' +
        '    \t       ~\n',
    );
  });

  it('draws at least one `~` for an empty range and stops a multi-line range at the line end', () => {
    const empty = diagnostic('unexpectedEnd', lines.range(text.length, text.length), { expected: '`}`' });
    const wide = diagnostic('unexpectedCharacter', lines.range(20, 30), { char: '?' });
    expect(renderDiagnostics('p.kpol', text, [wide, empty])).toBe(
      'p.kpol:1:21: error KPOL1001: unexpected character `?`\n' +
        '    policy p for nodepool a {\n' +
        '                        ~~~~~\n' +
        'p.kpol:3:2: error KPOL1004: unexpected end of input, expected `}`\n' +
        '    }\n' +
        '     ~\n',
    );
  });

  it('prints the quick fix when asked, and colours with ANSI codes only when asked', () => {
    const d = diagnostic(
      'unexpectedStatement',
      lines.range(27, 33),
      { found: 'budget' },
      { help: 'did you mean `budget`?', fix: 'budget' },
    );
    expect(renderDiagnostics('p.kpol', text, [d], { fixes: true })).toBe(
      'p.kpol:2:2: error KPOL1005: unknown statement `budget`\n' +
        '    \tbudget x\n' +
        '    \t~~~~~~\n' +
        '    help: did you mean `budget`?\n' +
        '    fix: replace with `budget`\n',
    );
    expect(renderDiagnostics('p.kpol', text, [d])).not.toContain('fix:');
    const coloured = renderDiagnostics('p.kpol', text, [d], { color: true });
    expect(coloured).toContain('\x1b[1;31merror KPOL1005:\x1b[0m');
    expect(coloured).toContain('\x1b[1;31m~~~~~~\x1b[0m');
    expect(coloured.replace(/\x1b\[[0-9;]*m/g, '')).toBe(renderDiagnostics('p.kpol', text, [d]));
  });

  it('prints nothing for no diagnostics', () => {
    expect(renderDiagnostics('p.kpol', text, [])).toBe('');
  });

  describe('a long line shows a window around the range', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    const long = `\t${body(400)} BAD ${body(400)}`;
    const at = long.indexOf('BAD');
    const d = diagnostic('unexpectedCharacter', new LineIndex(long).range(at, at + 3), { char: 'BAD' });
    const [, source, squiggle] = renderDiagnostics('p.kpol', long, [d]).split('\n');

    it('cuts the line to at most 100 columns with … on each cut side', () => {
      expect(long.length).toBeGreaterThan(3000);
      expect(source.length).toBeLessThanOrEqual(4 + 100);
      expect(source.startsWith('    …')).toBe(true);
      expect(source.endsWith('…')).toBe(true);
    });

    it('keeps the squiggle under the range', () => {
      expect(squiggle.trimStart()).toBe('~~~');
      expect(source.slice(squiggle.indexOf('~'), squiggle.indexOf('~') + 3)).toBe('BAD');
    });

    it('keeps the tabs of the shown part in the padding', () => {
      const tabbed = `${'x'.repeat(200)}\tBAD\t${'y'.repeat(200)}`;
      const b = tabbed.indexOf('BAD');
      const d = diagnostic('unexpectedCharacter', new LineIndex(tabbed).range(b, b + 3), { char: 'B' });
      const [, src, sq] = renderDiagnostics('p.kpol', tabbed, [d]).split('\n');
      expect(sq).toMatch(/^ {4} +\t~~~$/);
      expect(src.slice(sq.indexOf('~'), sq.indexOf('~') + 3)).toBe('BAD');
    });

    it('starts at the line start and cuts only the end when the range is near it', () => {
      const early = diagnostic('unexpectedCharacter', new LineIndex(long).range(1, 3), { char: 'w0' });
      const [, src, sq] = renderDiagnostics('p.kpol', long, [early]).split('\n');
      expect(src).toBe(`    ${long.slice(0, 99)}…`);
      expect(sq).toBe('    \t~~');
    });

    it('clips a range longer than the window to the window', () => {
      const all = diagnostic('unexpectedCharacter', new LineIndex(long).range(0, long.length), { char: '?' });
      const [, src, sq] = renderDiagnostics('p.kpol', long, [all]).split('\n');
      expect(src.length).toBeLessThanOrEqual(104);
      expect(sq.length).toBeLessThanOrEqual(104);
    });
  });
});
