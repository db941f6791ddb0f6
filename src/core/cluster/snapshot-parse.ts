// SPDX-License-Identifier: Apache-2.0
// Snapshot text → plain values. JSON goes through JSON.parse (fast enough for 150k pods);
// anything else, and JSON that JSON.parse rejects, goes through the YAML parser, which
// also locates syntax errors (YAML 1.2 is a superset of JSON). Nesting and alias expansion are
// bounded first (snapshot-limits.ts), so nothing after parsing can overflow the stack. A large
// YAML List is parsed item by item (yaml-list-split.ts), within ~2× the memory of its JSON.
import { LineCounter, parseAllDocuments } from 'yaml';
import { jsonTooDeepAt, nestingMessage, yamlLimitProblem } from './snapshot-limits.js';
import { splitYamlList } from './yaml-list-split.js';

export interface SyntaxProblem {
  line: number; // 1-based
  col: number; // 1-based
  message: string;
}

export interface ParsedText {
  /** One value per document (a JSON text is one document). Empty documents are dropped. */
  documents: unknown[];
  problems: SyntaxProblem[];
}

function firstLineOf(message: string): string {
  const line = message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  // the YAML composer recurses per level and reports its own overflow; say what the input did
  return /Maximum call stack size exceeded/.test(line) ? nestingMessage : line;
}

/** One YAML text's documents; lines reported from `firstLine` on (a split item starts mid-file). */
function parseYamlText(text: string, firstLine = 1): ParsedText {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: true, merge: true });
  const documents: unknown[] = [];
  const problems: SyntaxProblem[] = [];
  type Pos = { line: number; col: number };
  const at = (pos: Pos): Pos => ({ line: pos.line + firstLine - 1, col: pos.col });
  const list = Array.isArray(docs) ? docs : [docs];
  for (const doc of list) {
    if (doc.errors.length > 0) {
      for (const e of doc.errors) {
        const pos = e.linePos?.[0] ?? lineCounter.linePos(e.pos[0]);
        const problem = { ...at(pos), message: firstLineOf(e.message) };
        // an overflow is reported once per level it unwinds; one line says it
        if (!problems.some((p) => p.message === problem.message && p.line === problem.line)) problems.push(problem);
      }
      continue;
    }
    const limit = yamlLimitProblem(doc);
    if (limit) {
      problems.push({ ...at(lineCounter.linePos(limit.offset || (doc.range?.[0] ?? 0))), message: limit.message });
      continue;
    }
    // aliases are bounded by yamlLimitProblem (by expanded size, which yaml's count is not)
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: -1 });
    } catch (e) {
      // e.g. an alias whose anchor yaml's composer did not flag (long fuzz run, seed 27): located at the document
      problems.push({ ...at(lineCounter.linePos(doc.range?.[0] ?? 0)), message: firstLineOf((e as Error).message) });
      continue;
    }
    if (value === null || value === undefined) continue; // an empty document, e.g. a trailing `---`
    documents.push(value);
  }
  return { documents, problems };
}

/** Below this size a YAML List is parsed whole (exactly as written); above it, item by item. */
export const SPLIT_YAML_ABOVE = 1 << 20;

function parseYaml(text: string): ParsedText {
  const split = text.length > SPLIT_YAML_ABOVE ? splitYamlList(text) : undefined;
  if (!split) return parseYamlText(text);
  const head = parseYamlText(split.header);
  const root = head.documents[0];
  const isMapping = typeof root === 'object' && root !== null && !Array.isArray(root);
  if (head.documents.length !== 1 || !isMapping) return parseYamlText(text);
  const items: unknown[] = [];
  const problems = [...head.problems];
  for (const item of split.items) {
    const parsed = parseYamlText(split.itemText(item), item.line);
    problems.push(...parsed.problems);
    items.push(...parsed.documents);
  }
  (root as Record<string, unknown>).items = items;
  return { documents: [root], problems };
}

/** Parses snapshot text (JSON, or one or more YAML documents). */
export function parseSnapshotText(text: string): ParsedText {
  const start = /\S/.exec(text);
  if (start && (start[0] === '{' || start[0] === '[')) {
    const deep = jsonTooDeepAt(text);
    if (deep !== undefined) return { documents: [], problems: [{ ...lineCol(text, deep), message: nestingMessage }] };
    try {
      return { documents: [JSON.parse(text)], problems: [] };
    } catch (e) {
      const found = locateJsonError(text);
      if (found) return { documents: [], problems: [{ ...lineCol(text, found.offset), message: found.message }] };
      return { documents: [], problems: [{ line: 1, col: 1, message: (e as Error).message }] };
    }
  }
  return parseYaml(text);
}

function lineCol(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, col: offset - lineStart + 1 };
}

/**
 * The first JSON syntax error in `text` (JSON.parse does not say where on Node 20). Only run
 * after JSON.parse failed, so it favours brevity over speed; it recurses once per level, which
 * jsonTooDeepAt has bounded to MAX_NESTING before.
 */
function locateJsonError(text: string): { offset: number; message: string } | undefined {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const fail = (message: string): never => {
    throw { offset: i, message };
  };
  const describe = (): string =>
    i >= text.length ? 'unexpected end of JSON input' : `unexpected \`${text[i]}\` in JSON`;
  const str = (): void => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++;
      else if (text.charCodeAt(i) < 0x20) fail('unescaped control character in JSON string');
      i++;
    }
    if (i >= text.length) fail('unterminated string in JSON');
    i++;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      if (text[i] === close) return void i++;
      for (;;) {
        if (c === '{') {
          ws();
          if (text[i] !== '"') fail(`expected a property name, ${describe()}`);
          str();
          ws();
          if (text[i] !== ':') fail(`expected \`:\`, ${describe()}`);
          i++;
        }
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === close) return void i++;
        else fail(`expected \`,\` or \`${close}\`, ${describe()}`);
      }
    }
    if (c === '"') return str();
    const m = /^(-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
    if (!m) fail(`expected a value, ${describe()}`);
    i += m![0].length;
  };
  try {
    value();
    ws();
    if (i < text.length) fail(describe());
  } catch (e) {
    if (typeof e === 'object' && e !== null && 'offset' in e) return e as { offset: number; message: string };
    throw e;
  }
  return undefined;
}
