// SPDX-License-Identifier: Apache-2.0
// LSP completion from the core's offers (rules/completion.ts, the browser editor's too): the
// words before the cursor on its line pick what fits there. A trigger character (space, quote,
// `(`, `,`) asks only for what the context calls for, as in the browser editor; an explicit
// request (Ctrl+Space, a typed letter) falls back to every keyword and reason.
import { KEYWORD_DOCS, REASON_DOCS } from '../../../grammar/keyword-docs.js';
import { NAME_PATTERN } from '../../../grammar/tokens.js';
import { contextOffers, offersAt, type ClusterWords, type OfferKind } from '../../../rules/completion.js';
import {
  CompletionItemKind,
  CompletionTriggerKind,
  MarkupKind,
  type CompletionItem,
  type CompletionParams,
} from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';

export const TRIGGER_CHARACTERS = [' ', '"', '(', ','];

/** Without `--cluster`: no NodePool names, labels or namespaces to offer. */
export const NO_CLUSTER: ClusterWords = { nodePools: [], labels: new Map(), namespaces: [] };

const KIND: Record<OfferKind, CompletionItemKind> = {
  keyword: CompletionItemKind.Keyword,
  reason: CompletionItemKind.EnumMember,
  consolidation: CompletionItemKind.Value,
  zone: CompletionItemKind.Constant,
  nodepool: CompletionItemKind.Module,
  labelKey: CompletionItemKind.Property,
  labelValue: CompletionItemKind.Value,
  namespace: CompletionItemKind.Folder,
};

const WORD_END = new RegExp(`(?:${NAME_PATTERN.source})$`);
/**
 * How far back the word being typed is looked for. Matching WORD_END against a whole line is
 * quadratic in its length (a pasted 40,000-letter line took seconds); no name is this long (a
 * label key is at most 317 characters).
 */
const WORD_REACH = 1024;

export function completionItems(doc: TextDocument, params: CompletionParams, words = NO_CLUSTER): CompletionItem[] {
  const { line, character } = params.position;
  const upToCursor = doc.getText({ start: { line, character: 0 }, end: { line, character } });
  const inString = (upToCursor.match(/"/g) ?? []).length % 2 === 1;
  // The word being typed is replaced; inside a string (a zone name holds `/`) the whole content.
  const start = inString
    ? upToCursor.lastIndexOf('"') + 1
    : upToCursor.length - (WORD_END.exec(upToCursor.slice(-WORD_REACH))?.[0].length ?? 0);
  const before = upToCursor.slice(0, start);
  const typed = params.context?.triggerKind === CompletionTriggerKind.TriggerCharacter;
  const offers = typed ? (contextOffers(before, words) ?? []) : offersAt(before, words);
  const range = { start: { line, character: start }, end: { line, character: upToCursor.length } };
  return offers.map((o, i) => {
    const doc = o.kind === 'keyword' ? KEYWORD_DOCS[o.label] : o.kind === 'reason' ? REASON_DOCS[o.label] : undefined;
    return {
      label: o.label,
      kind: KIND[o.kind],
      sortText: String(i).padStart(5, '0'),
      textEdit: { range, newText: o.label },
      ...(o.detail && { detail: o.detail }),
      ...(doc && { documentation: { kind: MarkupKind.Markdown, value: doc } }),
    };
  });
}
