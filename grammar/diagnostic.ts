// SPDX-License-Identifier: Apache-2.0
// The one diagnostic type used by every phase (LSP-shaped, 0-based ranges). It lives in the
// first phase so that grammar/, rules/, src/ and editor/ can all import it without cycles.
import type { Range } from './ast.js';
import { clipQuoted } from './diagnostic-limit.js';
import { MESSAGES, type MessageName } from './messages.js';

export type Severity = 'error' | 'warning' | 'info';

export interface RelatedInfo {
  range: Range;
  message: string;
  /** The file the range lies in, when it is not the diagnostic's own. */
  file?: string;
}

export interface Diagnostic {
  code: string; // stable, e.g. KPOL2006
  severity: Severity;
  message: string;
  range: Range;
  help?: string;
  related?: RelatedInfo[];
  /** Replacement text for a quick fix ("did you mean"): replaces `range` with `fix`. */
  fix?: string;
}

/** A phase result: the value (possibly partial) plus the user-facing problems found. */
export interface Result<T> {
  value: T;
  diagnostics: Diagnostic[];
  /** Diagnostics left out past the per-file limit (diagnostic-limit.ts); absent means none. */
  omitted?: number;
}

/** Fills `{name}` placeholders; user input is expected to be backticked by the template. */
export function format(template: string, args: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => (k in args ? String(args[k]) : `{${k}}`));
}

/** Builds a diagnostic from the catalog; call sites never write message text themselves. */
export function diagnostic(
  name: MessageName,
  range: Range,
  args: Record<string, string | number> = {},
  extra: Partial<Pick<Diagnostic, 'help' | 'related' | 'fix'>> = {},
): Diagnostic {
  const entry = MESSAGES[name];
  // User text in a message is cut like a long source line: output stays small for any input.
  const quoted = clipQuoted(args);
  const d: Diagnostic = { code: entry.code, severity: entry.severity, message: format(entry.text, quoted), range };
  const help = extra.help ?? (entry.help ? format(entry.help, quoted) : undefined);
  if (help) d.help = help;
  if (extra.related) d.related = extra.related;
  if (extra.fix !== undefined) d.fix = extra.fix;
  return d;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** Orders diagnostics by position, then code, so output is stable for golden files. */
export function sortDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort((a, b) => a.range.start.offset - b.range.start.offset || a.code.localeCompare(b.code));
}
