// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { diagnostic } from '../../grammar/diagnostic.js';
import { LineIndex } from '../../grammar/positions.js';
import { renderDiagnostics } from '../../grammar/print-diagnostics.js';

describe('renderDiagnostics', () => {
  const text = 'policy p for nodepool a {\n\tbudget x\n}';
  const lines = new LineIndex(text);

  it('prints 1-based positions, the source line and a squiggle that follows tabs', () => {
    const d = diagnostic('unexpectedToken', lines.range(34, 35), { expected: 'a node count or percentage', found: 'x' });
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
    const d = diagnostic('unexpectedStatement', lines.range(27, 33), { found: 'budget' }, { help: 'did you mean `budget`?', fix: 'budget' });
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
});
