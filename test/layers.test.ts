// SPDX-License-Identifier: Apache-2.0
// The direction of every import. The code is layered, lowest first:
//   grammar/ → rules/ → src/core/ → src/world/ → src/control/ → src/edge/   (editor/ on top)
// A file may import from its own layer and the layers below it, never above; and no folder may
// reach itself again through other folders (a folder-level cycle). Each layer's README says
// what it holds; README.md's Layout shows the picture.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** Lowest first; a layer may import from itself and the layers before it. */
export const LAYERS: readonly { dir: string; why: string }[] = [
  { dir: 'grammar', why: 'the syntax: tokens, parser, AST, diagnostics; imports nothing of the project' },
  { dir: 'rules', why: 'the language: checker, windows, budgets, rule graphs; reads only the AST' },
  { dir: 'src/core', why: 'the cluster model and evaluation: objects, index, facts, eval, policies, events' },
  { dir: 'src/world', why: 'what kpol drives or stands in for: the simulated cloud, kubelet, scheduling' },
  { dir: 'src/control', why: "Karpenter's controllers and kpol's: provisioning, disruption, termination, govern" },
  { dir: 'src/edge', why: 'where kpol meets people and clusters: CLI, HTTP, the Kubernetes API, simulations' },
  { dir: 'editor', why: 'the browser editor, on top of the portable core' },
];

export interface Import {
  from: string; // repository-relative file
  to: string; // repository-relative resolved target
}

const layerOf = (path: string): number => LAYERS.findIndex((l) => path === l.dir || path.startsWith(`${l.dir}/`));

/** Imports that run upwards, as `from → to (layer → layer)`. */
export function wrongWay(imports: readonly Import[]): string[] {
  return imports.flatMap(({ from, to }) => {
    const a = layerOf(from);
    const b = layerOf(to);
    if (a < 0 || b < 0 || b <= a) return [];
    return [`${from} → ${to} (${LAYERS[a].dir} may not import ${LAYERS[b].dir})`];
  });
}

/** Folder-level cycles: each strongly connected set of two or more folders, sorted. */
export function folderCycles(imports: readonly Import[]): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const { from, to } of imports) {
    const a = dirname(from);
    const b = dirname(to);
    if (a === b) continue;
    if (!edges.has(a)) edges.set(a, new Set());
    edges.get(a)!.add(b);
    if (!edges.has(b)) edges.set(b, new Set());
  }
  // Tarjan's algorithm.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const set: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      set.push(w);
    } while (w !== v);
    if (set.length > 1) cycles.push(set.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

const SOURCE = /\.(ts|mts|mjs)$/;
const SPEC = /(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (SOURCE.test(name) && !name.endsWith('.d.mts')) yield path;
  }
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const from = relative(ROOT, file);
  return [...text.matchAll(SPEC)].map((m) => ({ from, to: relative(ROOT, resolve(dirname(file), m[1])) }));
}

describe('import directions', () => {
  const imports = LAYERS.flatMap((l) => [...sources(join(ROOT, l.dir))].flatMap(importsOf));

  it('reads the imports of every layer', () => {
    for (const l of LAYERS.slice(1)) expect(imports.some((i) => i.from.startsWith(`${l.dir}/`))).toBe(true);
  });

  it('no import runs upwards', () => {
    expect(wrongWay(imports)).toEqual([]);
  });

  it('no folder reaches itself through other folders', () => {
    expect(folderCycles(imports)).toEqual([]);
  });

  it('finds a planted wrong-way import and a planted cycle', () => {
    const planted: Import[] = [
      { from: 'rules/compile.ts', to: 'src/core/cluster/types.ts' },
      { from: 'src/world/cloud/a.ts', to: 'src/world/scheduling/b.ts' },
      { from: 'src/world/scheduling/b.ts', to: 'src/world/cloud/c.ts' },
    ];
    expect(wrongWay([...imports, ...planted])).toEqual([
      'rules/compile.ts → src/core/cluster/types.ts (rules may not import src/core)',
    ]);
    expect(folderCycles([...imports, ...planted])).toContainEqual(['src/world/cloud', 'src/world/scheduling']);
  });
});
