// SPDX-License-Identifier: Apache-2.0
// The one place kpol diagnostics become Monaco markers (0-based ranges → 1-based line and
// column). The diagnostic behind each marker is kept so quick fixes can find its `fix`.
import type { Diagnostic } from '../../grammar/diagnostic.js';
import { fixesTouching } from '../../grammar/quick-fix.js';
import { monaco } from './monaco.js';

export const MARKER_OWNER = 'kpol';

const SEVERITY: Record<Diagnostic['severity'], monaco.MarkerSeverity> = {
  error: monaco.MarkerSeverity.Error,
  warning: monaco.MarkerSeverity.Warning,
  info: monaco.MarkerSeverity.Info,
};

export function toMarker(d: Diagnostic): monaco.editor.IMarkerData {
  const empty = d.range.start.offset === d.range.end.offset;
  return {
    code: d.code,
    severity: SEVERITY[d.severity],
    message: d.help ? `${d.message}\nhelp: ${d.help}` : d.message,
    source: 'kpol',
    startLineNumber: d.range.start.line + 1,
    startColumn: d.range.start.character + 1,
    endLineNumber: d.range.end.line + 1,
    // An empty range (a missing token) still gets one column so that it can be seen.
    endColumn: d.range.end.character + 1 + (empty ? 1 : 0),
  };
}

const byModel = new WeakMap<monaco.editor.ITextModel, Diagnostic[]>();

export function setDiagnostics(model: monaco.editor.ITextModel, diagnostics: Diagnostic[]): void {
  byModel.set(model, diagnostics);
  monaco.editor.setModelMarkers(model, MARKER_OWNER, diagnostics.map(toMarker));
}

/** The diagnostics with a fix whose range overlaps or touches `range` (grammar/quick-fix.ts, as `kpol lsp`). */
export function fixesAt(model: monaco.editor.ITextModel, range: monaco.IRange): Diagnostic[] {
  return fixesTouching(
    byModel.get(model) ?? [],
    { line: range.startLineNumber - 1, character: range.startColumn - 1 },
    { line: range.endLineNumber - 1, character: range.endColumn - 1 },
  );
}
