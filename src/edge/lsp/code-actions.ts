// SPDX-License-Identifier: Apache-2.0
// LSP quick fixes: each kpol diagnostic with a `fix` ("did you mean", `10 %` → `10%`) touching
// the asked range becomes a code action that replaces the diagnostic's range with the fix. The
// diagnostics are the server's latest for the document (grammar/quick-fix.ts picks them).
import type { Diagnostic as KpolDiagnostic } from '../../../grammar/diagnostic.js';
import { fixesTouching } from '../../../grammar/quick-fix.js';
import { CodeActionKind, type CodeAction, type CodeActionParams } from 'vscode-languageserver/node';
import { toLspDiagnostic, toLspRange } from './diagnostics.js';

export function quickFixes(diagnostics: readonly KpolDiagnostic[], params: CodeActionParams): CodeAction[] {
  const { uri } = params.textDocument;
  return fixesTouching(diagnostics, params.range.start, params.range.end).map((d) => ({
    title: `Replace with \`${d.fix}\``,
    kind: CodeActionKind.QuickFix,
    isPreferred: true,
    diagnostics: [toLspDiagnostic(d, uri)],
    edit: { changes: { [uri]: [{ range: toLspRange(d.range), newText: d.fix! }] } },
  }));
}
