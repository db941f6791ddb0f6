// SPDX-License-Identifier: Apache-2.0
// LSP go to definition: from a window's schedule name to its `schedule NAME = …` declaration
// (grammar/schedule-definition.ts). Schedules belong to their file, so the target is too.
import { parse } from '../../../grammar/parse.js';
import { scheduleDefinitionAt } from '../../../grammar/schedule-definition.js';
import type { Location, Position } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { toLspRange } from './diagnostics.js';

export function definitionAt(doc: TextDocument, position: Position): Location | null {
  const range = scheduleDefinitionAt(parse(doc.getText()).value, doc.offsetAt(position));
  return range ? { uri: doc.uri, range: toLspRange(range) } : null;
}
