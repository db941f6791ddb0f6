// SPDX-License-Identifier: Apache-2.0
// Diagnostics as text, in the style of TypeScript's `.errors.txt` baselines: a header line
// `file:line:col: severity CODE: message` (1-based line and column), the source line, and a
// `~~~~` squiggle under the range (to the end of the line when the range spans lines); a long
// line shows only a window around the range (line-window.ts), and a last line counts the
// diagnostics left out past the per-file limit (diagnostic-limit.ts). With
// `color`, ANSI colours as rustc uses them (the CLI decides when: a terminal, no NO_COLOR).
import { MAX_DIAGNOSTICS } from './diagnostic-limit.js';
import type { Diagnostic, Severity } from './diagnostic.js';
import { lineWindow } from './line-window.js';
import { LineIndex } from './positions.js';

export interface RenderOptions {
  /** ANSI colours: severity and squiggle in the severity's colour, help in cyan. */
  color?: boolean;
  /** A `fix:` line after each diagnostic that has a quick fix (golden files). */
  fixes?: boolean;
  /** Diagnostics left out past the per-file limit: a last line says how many. */
  omitted?: number;
}

const RESET = '\x1b[0m';
const BOLD = '\x1b[1m';
const SEVERITY_COLOR: Record<Severity, string> = { error: '\x1b[1;31m', warning: '\x1b[1;33m', info: '\x1b[1;36m' };
const HELP = '\x1b[1;36m';
const NOTE = '\x1b[1;34m';

/** Renders `diagnostics` of `text` (in the order given); empty string when there are none. */
export function renderDiagnostics(
  fileName: string,
  text: string,
  diagnostics: readonly Diagnostic[],
  options: RenderOptions = {},
): string {
  const lines = new LineIndex(text);
  const paint = (style: string, s: string) => (options.color ? `${style}${s}${RESET}` : s);
  const out: string[] = [];
  for (const d of diagnostics) {
    const { start, end } = d.range;
    const where = `${fileName}:${start.line + 1}:${start.character + 1}:`;
    const severity = paint(SEVERITY_COLOR[d.severity], `${d.severity} ${d.code}:`);
    out.push(`${paint(BOLD, where)} ${severity} ${paint(BOLD, d.message)}`);
    const line = lines.lineText(start.line);
    const shown = lineWindow(line, start.character, end.line === start.line ? end.character : line.length);
    const width = Math.max(1, shown.end - shown.start);
    // Keep tabs in the padding so the squiggle lines up under tab-indented source.
    const pad = shown.text.slice(0, shown.start).replace(/[^\t]/g, ' ');
    out.push(`    ${shown.text}`);
    out.push(`    ${pad}${paint(SEVERITY_COLOR[d.severity], '~'.repeat(width))}`);
    if (d.help) out.push(`    ${paint(HELP, 'help:')} ${d.help}`);
    if (options.fixes && d.fix !== undefined) out.push(`    ${paint(HELP, 'fix:')} replace with \`${d.fix}\``);
    for (const r of d.related ?? []) {
      const at = `${fileName}:${r.range.start.line + 1}:${r.range.start.character + 1}`;
      out.push(`    ${paint(NOTE, 'related')} ${at}: ${r.message}`);
    }
  }
  if (options.omitted) out.push(paint(BOLD, `${fileName}: ${omittedNote(options.omitted)}`));
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}

/** The summary of diagnostics left out, e.g. `900 more diagnostics not shown (at most 100 per file)`. */
export function omittedNote(omitted: number): string {
  return `${omitted} more diagnostic${omitted === 1 ? '' : 's'} not shown (at most ${MAX_DIAGNOSTICS} per file)`;
}
