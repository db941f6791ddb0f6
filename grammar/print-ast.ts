// SPDX-License-Identifier: Apache-2.0
// A stable, readable text form of the AST for golden files and `kpol parse`: one node per
// line with its 1-based `@line:col`, fields sorted by name, leaves inline, no other range data.
import type { PolicyFile } from './ast.js';

type Value = unknown;

interface NodeLike {
  kind: string;
  range: { start: { line: number; character: number } };
  [field: string]: Value;
}

function isNode(v: Value): v is NodeLike {
  return typeof v === 'object' && v !== null && 'kind' in v && 'range' in v;
}

function at(n: NodeLike): string {
  return `@${n.range.start.line + 1}:${n.range.start.character + 1}`;
}

/** Leaves print on one line: `Name default @3:25`, `Str "0 1 * * *" @2:10`. */
function leafText(n: NodeLike): string | undefined {
  switch (n.kind) {
    case 'Name':
      return `Name ${String(n['text'])} ${at(n)}`;
    case 'Str':
      return `Str ${JSON.stringify(n['value'])} ${at(n)}`;
    case 'Duration':
      return `Duration ${String(n['text'])} ${at(n)}`;
    case 'Never':
      return `Never ${at(n)}`;
    case 'Quantity':
      return `Quantity ${String(n['text'])} (value ${String(n['value'])}${n['percent'] ? ', percent' : ''}) ${at(n)}`;
    case 'Comment':
      return `Comment ${JSON.stringify(n['text'])} ${at(n)}`;
    default:
      return undefined;
  }
}

function printNode(n: NodeLike, indent: string, out: string[], label: string): void {
  const leaf = leafText(n);
  if (leaf) {
    out.push(`${indent}${label}${leaf}`);
    return;
  }
  out.push(`${indent}${label}${n.kind} ${at(n)}`);
  const fields = Object.keys(n)
    .filter((k) => k !== 'kind' && k !== 'range')
    .sort();
  for (const field of fields) printField(field, n[field], `${indent}  `, out);
}

function printField(field: string, v: Value, indent: string, out: string[]): void {
  if (v === undefined) return;
  if (isNode(v)) {
    printNode(v, indent, out, `${field}: `);
  } else if (Array.isArray(v)) {
    if (v.length === 0) {
      out.push(`${indent}${field}: []`);
      return;
    }
    v.forEach((item, i) =>
      isNode(item)
        ? printNode(item, indent, out, `${field}[${i}]: `)
        : out.push(`${indent}${field}[${i}]: ${JSON.stringify(item)}`),
    );
  } else {
    out.push(`${indent}${field}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  }
}

/** Prints `file` as indented text ending with a newline. */
export function printAst(file: PolicyFile): string {
  const out: string[] = [];
  printNode(file as unknown as NodeLike, '', out, '');
  return `${out.join('\n')}\n`;
}
