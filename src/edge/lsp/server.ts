// SPDX-License-Identifier: Apache-2.0
// `kpol lsp`: a Language Server Protocol server on the given streams (stdin/stdout for the
// CLI), built on vscode-languageserver. Every answer comes from the same core as `kpol check`,
// `kpol fmt` and the browser editor; this file only wires LSP requests to it. Documents are
// synchronised incrementally; a change (or a burst of them) re-checks every open .kpol document
// together with the workspace's closed ones (names and NodePools are unique across files;
// workspace.ts) and publishes each open one's diagnostics.
//
// Bad input never stops the server: a request whose parameters are malformed is answered with
// an InvalidParams error, one for a document that is not open with an empty answer, and any
// text, however broken, gets diagnostics. The `exit` notification ends the process (code 0
// after `shutdown`, else 1, as the protocol asks), which vscode-languageserver does itself.
import { isAbsolute } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Diagnostic as KpolDiagnostic } from '../../../grammar/diagnostic.js';
import type { ClusterWords } from '../../../rules/completion.js';
import {
  CodeActionKind,
  createConnection,
  ErrorCodes,
  ResponseError,
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
  type InitializeParams,
  type InitializeResult,
  type Position,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { quickFixes } from './code-actions.js';
import { completionItems, NO_CLUSTER, TRIGGER_CHARACTERS } from './completion.js';
import { definitionAt } from './definition.js';
import { checkDocuments, toLspDiagnostic } from './diagnostics.js';
import { formattingEdits } from './formatting.js';
import { hoverAt } from './hover.js';
import { MAX_WORKSPACE_FILES, Workspace } from './workspace.js';

export const CAPABILITIES: InitializeResult['capabilities'] = {
  textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
  completionProvider: { triggerCharacters: TRIGGER_CHARACTERS },
  hoverProvider: true,
  definitionProvider: true,
  documentFormattingProvider: true,
  codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
};

/** How long a change waits for the ones right behind it before the documents are checked. */
export const CHECK_DELAY_MS = 50;

/** A .kpol document: by language or name, and with text (a malformed didOpen may carry none). */
const isKpol = (doc: TextDocument): boolean =>
  (doc.languageId === 'kpol' || doc.uri.endsWith('.kpol')) && typeof doc.getText() === 'string';

/** The name diagnostics and cross-file notes use: the path of a file: URI, else the URI. */
/** The file: URI of a file name that is a path (the inverse of fileNameOf); other names are URIs already. */
const uriOfFile = (fileName: string): string => (isAbsolute(fileName) ? pathToFileURL(fileName).href : fileName);

function fileNameOf(uri: string): string {
  if (!uri.startsWith('file:')) return uri;
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

/** The workspace folders' paths (file: URIs only), else the root's. */
function workspaceRoots(params: InitializeParams | null | undefined): string[] {
  const folders: unknown = params?.workspaceFolders;
  const uris: unknown[] = Array.isArray(folders)
    ? folders.map((f: { uri?: unknown } | null) => f?.uri)
    : [params?.rootUri];
  return uris.filter((u): u is string => typeof u === 'string' && u.startsWith('file:')).map(fileNameOf);
}

const invalid = (what: string) => new ResponseError(ErrorCodes.InvalidParams, `kpol lsp: ${what}`);

/** The `textDocument.uri` of a request's parameters, or an InvalidParams error. */
function uriOf(params: unknown): string {
  const uri = (params as { textDocument?: { uri?: unknown } } | null)?.textDocument?.uri;
  if (typeof uri !== 'string') throw invalid('textDocument.uri must be a string');
  return uri;
}

/** The `position` of a request's parameters, or an InvalidParams error. */
function positionOf(params: unknown): Position {
  const p = (params as { position?: { line?: unknown; character?: unknown } } | null)?.position;
  const ok = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 0;
  if (!p || !ok(p.line) || !ok(p.character)) throw invalid('position needs a line and a character (integers ≥ 0)');
  return { line: p.line as number, character: p.character as number };
}

/**
 * Starts the server on `input`/`output`; it runs until the client sends `exit`. `words` are the
 * cluster's names completion offers (NodePools, label keys and values, namespaces).
 */
export function startLanguageServer(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  words: ClusterWords = NO_CLUSTER,
): Connection {
  const connection = createConnection(input, output);
  const documents = new TextDocuments(TextDocument);
  /** The latest kpol diagnostics of each open document, for code actions. */
  const latest = new Map<string, KpolDiagnostic[]>();
  const workspace = new Workspace();

  const republish = () => {
    const open = documents.all().filter(isKpol);
    let checked: KpolDiagnostic[][];
    try {
      const closed = workspace.files((uri) => documents.get(uri) !== undefined);
      // Closed files first: a clash is reported on the later file, and the open one is what the user sees.
      checked = checkDocuments([
        ...closed,
        ...open.map((d) => ({ uri: d.uri, fileName: fileNameOf(d.uri), text: d.getText() })),
      ]).slice(closed.length);
    } catch (e) {
      // A bug in the checker, not the user's text: say so in the client's log, keep serving.
      connection.console.error(`kpol lsp: internal error while checking: ${(e as Error).stack ?? String(e)}`);
      return;
    }
    open.forEach((doc, i) => {
      latest.set(doc.uri, checked[i]);
      void connection.sendDiagnostics({
        uri: doc.uri,
        version: doc.version,
        diagnostics: checked[i].map((d) => toLspDiagnostic(d, doc.uri, uriOfFile)),
      });
    });
  };

  // Changes that arrive together (fast typing, an editor's burst of edits) are checked once,
  // CHECK_DELAY_MS after the first; a code action, which needs the diagnostics, checks at once.
  let pending: NodeJS.Timeout | undefined;
  const scheduleCheck = () => {
    pending ??= setTimeout(flushCheck, CHECK_DELAY_MS);
  };
  const flushCheck = () => {
    if (pending === undefined) return;
    clearTimeout(pending);
    pending = undefined;
    republish();
  };

  /** The open document a request is about; undefined (an empty answer) when it is not open. */
  const openDocument = (params: unknown) => documents.get(uriOf(params));

  connection.onInitialize((params) => {
    workspace.scan(workspaceRoots(params));
    if (workspace.truncated)
      connection.console.warn(`kpol lsp: more than ${MAX_WORKSPACE_FILES} .kpol files; the rest are not checked`);
    return { capabilities: CAPABILITIES, serverInfo: { name: 'kpol' } };
  });
  connection.onDidChangeWatchedFiles(() => {
    workspace.scan();
    scheduleCheck();
  });
  documents.onDidChangeContent(scheduleCheck);
  documents.onDidClose(({ document }) => {
    latest.delete(document.uri);
    void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
    scheduleCheck();
  });
  connection.onCompletion((params) => {
    const doc = openDocument(params);
    positionOf(params);
    return doc ? completionItems(doc, params, words) : [];
  });
  connection.onHover((params) => {
    const doc = openDocument(params);
    const position = positionOf(params);
    return doc ? hoverAt(doc, position) : null;
  });
  connection.onDefinition((params) => {
    const doc = openDocument(params);
    const position = positionOf(params);
    return doc ? definitionAt(doc, position) : null;
  });
  connection.onDocumentFormatting((params) => {
    const doc = openDocument(params);
    return doc ? formattingEdits(doc) : [];
  });
  connection.onCodeAction((params) => {
    const uri = uriOf(params);
    flushCheck();
    const range = (params as { range?: { start?: unknown; end?: unknown } } | null)?.range;
    const start = positionOf({ position: range?.start });
    const end = positionOf({ position: range?.end });
    return quickFixes(latest.get(uri) ?? [], { ...params, range: { start, end } });
  });

  documents.listen(connection);
  connection.listen();
  return connection;
}
