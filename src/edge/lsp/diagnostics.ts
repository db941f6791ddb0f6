// SPDX-License-Identifier: Apache-2.0
// kpol diagnostics as LSP diagnostics. Every open .kpol document is checked together with the
// others, exactly as `kpol check` checks the files it is given (src/core/policy/load.ts: parse,
// then checkAll across files, at most 100 diagnostics per file): a NodePool governed by two open
// policies is reported in both. kpol's ranges are already LSP-shaped (0-based line, UTF-16
// character), so positions pass through unchanged.
import type { Diagnostic as KpolDiagnostic, Severity } from '../../../grammar/diagnostic.js';
import { loadPolicies, type PolicySource } from '../../core/policy/load.js';
import { DiagnosticSeverity, type Diagnostic, type Range } from 'vscode-languageserver/node';

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
};

/** What an LSP diagnostic keeps of the kpol one: the quick fix, for code actions. */
export interface DiagnosticData {
  fix?: string;
}

export function toLspRange(r: KpolDiagnostic['range']): Range {
  return {
    start: { line: r.start.line, character: r.start.character },
    end: { line: r.end.line, character: r.end.character },
  };
}

/**
 * `uri` is the diagnostic's document; `uriOfFile` turns the file name of a related note that
 * lies in another file (the first declaration of a name used twice) into that file's URI.
 */
export function toLspDiagnostic(
  d: KpolDiagnostic,
  uri: string,
  uriOfFile: (fileName: string) => string = (f) => f,
): Diagnostic {
  const out: Diagnostic = {
    range: toLspRange(d.range),
    severity: SEVERITY[d.severity],
    code: d.code,
    source: 'kpol',
    message: d.help ? `${d.message}\nhelp: ${d.help}` : d.message,
  };
  // kpol's related notes (the first declaration of a duplicate, …) name their file when it is another.
  if (d.related?.length)
    out.relatedInformation = d.related.map((r) => ({
      location: { uri: r.file === undefined ? uri : uriOfFile(r.file), range: toLspRange(r.range) },
      message: r.message,
    }));
  if (d.fix !== undefined) out.data = { fix: d.fix } satisfies DiagnosticData;
  return out;
}

export interface OpenDocument {
  uri: string;
  /** The name checkAll records and cross-file notes mention: the file's path when it has one. */
  fileName: string;
  text: string;
}

/** The kpol diagnostics of each document, checked together; in the order given. */
export function checkDocuments(docs: readonly OpenDocument[]): KpolDiagnostic[][] {
  const sources: PolicySource[] = docs.map((d) => ({ fileName: d.fileName, text: d.text }));
  return loadPolicies(sources).files.map((f) => f.diagnostics);
}
