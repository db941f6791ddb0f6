// SPDX-License-Identifier: Apache-2.0
// LSP document formatting: `kpol fmt`'s canonical form (grammar/format.ts) as one edit over
// the whole document. Text with syntax errors is never rewritten, as `kpol fmt` leaves it.
import { formatSource } from '../../../grammar/format.js';
import type { TextEdit } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';

export function formattingEdits(doc: TextDocument): TextEdit[] {
  const text = doc.getText();
  const formatted = formatSource(text).value;
  if (formatted === undefined || formatted === text) return [];
  return [{ range: { start: { line: 0, character: 0 }, end: doc.positionAt(text.length) }, newText: formatted }];
}
