// SPDX-License-Identifier: Apache-2.0
// Registers the kpol language in Monaco: Monarch highlighting generated from grammar/'s tokens,
// completion, hover docs, "did you mean" quick fixes and format document (in the worker).
import { KPOL_LANGUAGE_ID, kpolMonarch } from '../../grammar/monarch.js';
import { NAME_PATTERN } from '../../grammar/tokens.js';
import { KEYWORD_DOCS, REASON_DOCS } from '../../grammar/keyword-docs.js';
import { contextOffers, offersAt, type ClusterWords, type OfferKind } from '../../rules/completion.js';
import { fixesAt, MARKER_OWNER } from './markers.js';
import { monaco } from './monaco.js';

export interface LanguageHooks {
  words(): ClusterWords;
  format(text: string): Promise<string | undefined>;
}

const KIND: Record<OfferKind, monaco.languages.CompletionItemKind> = {
  keyword: monaco.languages.CompletionItemKind.Keyword,
  reason: monaco.languages.CompletionItemKind.EnumMember,
  consolidation: monaco.languages.CompletionItemKind.Value,
  zone: monaco.languages.CompletionItemKind.Constant,
  nodepool: monaco.languages.CompletionItemKind.Module,
  labelKey: monaco.languages.CompletionItemKind.Property,
  labelValue: monaco.languages.CompletionItemKind.Value,
  namespace: monaco.languages.CompletionItemKind.Folder,
};

export function registerKpol(hooks: LanguageHooks): void {
  const id = KPOL_LANGUAGE_ID;
  monaco.languages.register({ id, extensions: ['.kpol'] });
  monaco.languages.setMonarchTokensProvider(id, kpolMonarch as unknown as monaco.languages.IMonarchLanguage);
  monaco.languages.setLanguageConfiguration(id, {
    comments: { lineComment: '#' },
    brackets: [
      ['{', '}'],
      ['(', ')'],
    ],
    autoClosingPairs: [
      { open: '{', close: '}' },
      { open: '(', close: ')' },
      { open: '"', close: '"', notIn: ['string', 'comment'] },
    ],
    // Names hold dots, dashes and slashes (label keys such as topology.kubernetes.io/zone).
    wordPattern: new RegExp(NAME_PATTERN.source, 'g'),
  });

  monaco.languages.registerCompletionItemProvider(id, {
    triggerCharacters: [' ', '"', '(', ','],
    provideCompletionItems(model, position, context) {
      const word = model.getWordUntilPosition(position);
      const line = model.getLineContent(position.lineNumber);
      const inString = (line.slice(0, position.column - 1).match(/"/g) ?? []).length % 2 === 1;
      // Zone names hold `/`; inside a string the whole string content is the word.
      const startColumn = inString ? line.lastIndexOf('"', position.column - 2) + 2 : word.startColumn;
      const before = line.slice(0, startColumn - 1);
      const range = {
        startLineNumber: position.lineNumber,
        endLineNumber: position.lineNumber,
        startColumn,
        endColumn: inString ? position.column : word.endColumn,
      };
      const typed = context.triggerKind === monaco.languages.CompletionTriggerKind.TriggerCharacter;
      const list = typed ? (contextOffers(before, hooks.words()) ?? []) : offersAt(before, hooks.words());
      const suggestions = list.map((o, i) => ({
        label: o.label,
        kind: KIND[o.kind],
        insertText: o.label,
        range,
        sortText: String(i).padStart(5, '0'),
        ...(o.detail && { detail: o.detail }),
        ...(o.kind === 'keyword' && KEYWORD_DOCS[o.label] && { documentation: { value: KEYWORD_DOCS[o.label] } }),
        ...(o.kind === 'reason' && { documentation: { value: REASON_DOCS[o.label] } }),
      }));
      return { suggestions };
    },
  });

  monaco.languages.registerHoverProvider(id, {
    provideHover(model, position) {
      const word = model.getWordAtPosition(position);
      if (!word) return null;
      const token = [...(monaco.editor.tokenize(model.getLineContent(position.lineNumber), id)[0] ?? [])]
        .reverse()
        .find((t) => t.offset <= word.startColumn - 1);
      if (token && /^(string|comment)/.test(token.type)) return null;
      const doc = KEYWORD_DOCS[word.word] ?? REASON_DOCS[word.word];
      if (!doc) return null;
      return {
        range: new monaco.Range(position.lineNumber, word.startColumn, position.lineNumber, word.endColumn),
        contents: [{ value: `**${word.word}**` }, { value: doc }],
      };
    },
  });

  monaco.languages.registerCodeActionProvider(
    id,
    {
      provideCodeActions(model, range, context) {
        const actions = fixesAt(model, range).map((d): monaco.languages.CodeAction => {
          const r = new monaco.Range(
            d.range.start.line + 1,
            d.range.start.character + 1,
            d.range.end.line + 1,
            d.range.end.character + 1,
          );
          return {
            title: `Replace with \`${d.fix}\``,
            kind: 'quickfix',
            isPreferred: true,
            diagnostics: context.markers.filter(
              (m) => m.source === MARKER_OWNER && m.code === d.code && r.intersectRanges(m) !== null,
            ),
            edit: {
              edits: [{ resource: model.uri, versionId: model.getVersionId(), textEdit: { range: r, text: d.fix! } }],
            },
          };
        });
        return { actions, dispose() {} };
      },
    },
    { providedCodeActionKinds: ['quickfix'] },
  );

  monaco.languages.registerDocumentFormattingEditProvider(id, {
    async provideDocumentFormattingEdits(model) {
      const formatted = await hooks.format(model.getValue());
      // Text with syntax errors is never rewritten (as `kpol fmt`).
      if (formatted === undefined || formatted === model.getValue()) return [];
      return [{ range: model.getFullModelRange(), text: formatted }];
    },
  });
}
