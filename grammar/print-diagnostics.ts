// SPDX-License-Identifier: Apache-2.0
// Diagnostics as text, in the style of TypeScript's `.errors.txt` baselines: a header line
// `file:line:col: severity CODE: message` (1-based line and column), the source line, and a
// `~~~~` squiggle under the range (to the end of the line when the range spans lines).
import type { Diagnostic } from './diagnostic.js';
import { LineIndex } from './positions.js';

/** Renders `diagnostics` of `text` (in the order given); empty string when there are none. */
export function renderDiagnostics(fileName: string, text: string, diagnostics: readonly Diagnostic[]): string {
  const lines = new LineIndex(text);
  const out: string[] = [];
  for (const d of diagnostics) {
    const { start, end } = d.range;
    out.push(`${fileName}:${start.line + 1}:${start.character + 1}: ${d.severity} ${d.code}: ${d.message}`);
    const source = lines.lineText(start.line);
    const stop = end.line === start.line ? end.character : source.length;
    const width = Math.max(1, stop - start.character);
    // Keep tabs in the padding so the squiggle lines up under tab-indented source.
    const pad = source.slice(0, start.character).replace(/[^\t]/g, ' ');
    out.push(`    ${source}`);
    out.push(`    ${pad}${'~'.repeat(width)}`);
    if (d.help) out.push(`    help: ${d.help}`);
    for (const r of d.related ?? []) {
      out.push(`    related ${fileName}:${r.range.start.line + 1}:${r.range.start.character + 1}: ${r.message}`);
    }
  }
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}
