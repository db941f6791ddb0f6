// SPDX-License-Identifier: Apache-2.0
// Every citation of Karpenter's behaviour resolves inside the repository: code, tests, rule
// docs and goldens cite src/KARPENTER.md by anchor (`KARPENTER.md#budget-windows`), each anchor
// cited must exist there, and nothing cites the notes the project started from outside the tree
// (their section numbers, the seed documents, ../shared).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const NOTES = join(ROOT, 'src', 'KARPENTER.md');
const SCANNED = ['src', 'rules', 'grammar', 'editor', 'test', 'deploy', '.ci', 'README.md'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git']);
const TEXT = /\.(ts|mts|mjs|js|json|md|kpol|yaml|yml|sh|txt)$|^run$|Dockerfile$/;

const CITATION = /KARPENTER\.md#([A-Za-z0-9-]*)/g;
const OUTSIDE = [/reference(?:'s)? §\d/i, /\bseeds? 00\d\b/, /shared\/reference/, /karpenter-semantics/];

function anchorsOf(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]));
}

/** `path:line: problem` for each citation of a missing anchor or of a document outside the tree. */
export function citationProblems(path: string, text: string, anchors: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(CITATION)) {
      if (!anchors.has(m[1])) problems.push(`${path}:${i + 1}: KARPENTER.md has no anchor "${m[1]}"`);
    }
    for (const pattern of OUTSIDE) {
      if (pattern.test(line))
        problems.push(`${path}:${i + 1}: cites a document outside the repository (${pattern.source})`);
    }
  });
  return problems;
}

function* files(path: string): Generator<string> {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return;
  if (stat.isFile()) {
    if (TEXT.test(path)) yield path;
    return;
  }
  for (const name of readdirSync(path)) if (!SKIPPED_DIRS.has(name)) yield* files(join(path, name));
}

describe('citations of Karpenter behaviour', () => {
  const notes = readFileSync(NOTES, 'utf8');
  const anchors = anchorsOf(notes);
  const self = relative(ROOT, import.meta.filename);

  it('the notes have their anchors, and their own links resolve', () => {
    expect(anchors.size).toBeGreaterThan(30);
    const dangling = [...notes.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]).filter((a) => !anchors.has(a));
    expect(dangling).toEqual([]);
  });

  it('every citation in the tree names an anchor that exists, and none points outside the tree', () => {
    const problems: string[] = [];
    let cited = 0;
    for (const top of SCANNED) {
      for (const file of files(join(ROOT, top))) {
        const path = relative(ROOT, file);
        if (path === self || path === 'src/KARPENTER.md') continue;
        const text = readFileSync(file, 'utf8');
        cited += [...text.matchAll(CITATION)].length;
        problems.push(...citationProblems(path, text, anchors));
      }
    }
    expect(problems).toEqual([]);
    expect(cited).toBeGreaterThan(150);
  });

  it('reports a planted wrong anchor and a planted outside citation', () => {
    const text = 'ok (KARPENTER.md#budget-windows)\n// see KARPENTER.md#no-such-anchor\n// reference §1.6\n';
    expect(citationProblems('x.ts', text, anchors)).toEqual([
      'x.ts:2: KARPENTER.md has no anchor "no-such-anchor"',
      "x.ts:3: cites a document outside the repository (reference(?:'s)? §\\d)",
    ]);
  });
});
