// SPDX-License-Identifier: Apache-2.0
// LSP hover: the documentation of the keyword or reason under the cursor (grammar/hover.ts).
import { wordDocAt } from '../../../grammar/hover.js';
import { MarkupKind, type Hover, type Position } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { toLspRange } from './diagnostics.js';

export function hoverAt(doc: TextDocument, position: Position): Hover | null {
  const found = wordDocAt(doc.getText(), doc.offsetAt(position));
  if (!found) return null;
  return { contents: { kind: MarkupKind.Markdown, value: found.markdown }, range: toLspRange(found.range) };
}
