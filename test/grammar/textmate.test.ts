// SPDX-License-Identifier: Apache-2.0
// The VS Code grammar (editor/vscode/syntaxes/kpol.tmLanguage.json) is the generated one, and
// read with TextMate's rule — the leftmost match of any pattern, the first pattern on a tie —
// it colours every token of the shipped examples as the browser editor's Monarch rules do.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { kpolTextMate, SCOPE_OF, type TextMateGrammar } from '../../grammar/textmate.js';
import { classify } from './monarch-classify.js';

const FILE = new URL('../../editor/vscode/syntaxes/kpol.tmLanguage.json', import.meta.url);
const EXAMPLES = new URL('../../rules/examples/', import.meta.url);

/** TextMate's scan of one line: scope:text for each match, skipping what no pattern matches. */
function textMate(grammar: TextMateGrammar, line: string): string[] {
  const res = grammar.patterns.map((p) => ({ scope: p.name!, re: new RegExp(p.match, 'g') }));
  const out: string[] = [];
  for (let at = 0; at < line.length;) {
    let best: { scope: string; index: number; text: string } | undefined;
    for (const { scope, re } of res) {
      re.lastIndex = at;
      const m = re.exec(line);
      if (m && m[0].length > 0 && (!best || m.index < best.index)) best = { scope, index: m.index, text: m[0] };
    }
    if (!best) break;
    out.push(`${best.scope}:${best.text}`);
    at = best.index + best.text.length;
  }
  return out;
}

/** Monarch's scan of one line, as TextMate scopes. */
function monarch(line: string): string[] {
  return classify(line).map((t) => {
    const at = t.indexOf(':');
    return `${SCOPE_OF[t.slice(0, at)]}:${t.slice(at + 1)}`;
  });
}

describe('the TextMate grammar', () => {
  it('is the one generated from the Monarch rules (KPOL_UPDATE_GOLDEN=1 rewrites it)', () => {
    const generated = `${JSON.stringify(kpolTextMate(), null, 2)}\n`;
    if (process.env.KPOL_UPDATE_GOLDEN) writeFileSync(FILE, generated);
    expect(readFileSync(FILE, 'utf8')).toBe(generated);
  });

  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.kpol'));
  it.each(files)('colours %s as the browser editor does', (f) => {
    const tm = JSON.parse(readFileSync(FILE, 'utf8')) as TextMateGrammar;
    for (const line of readFileSync(new URL(f, EXAMPLES), 'utf8').split('\n'))
      expect(textMate(tm, line), line).toEqual(monarch(line));
  });

  it('keeps keywords inside names and numbers inside names as names', () => {
    const tm = JSON.parse(readFileSync(FILE, 'utf8')) as TextMateGrammar;
    expect(textMate(tm, 'policy for-web for nodepool budget.pool, x5m, 5mx')).toEqual([
      'keyword.control.kpol:policy',
      'variable.other.kpol:for-web',
      'keyword.control.kpol:for',
      'keyword.control.kpol:nodepool',
      'variable.other.kpol:budget.pool',
      'punctuation.separator.kpol:,',
      'variable.other.kpol:x5m',
      'punctuation.separator.kpol:,',
      'variable.other.kpol:5mx',
    ]);
  });
});
