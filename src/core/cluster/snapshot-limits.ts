// SPDX-License-Identifier: Apache-2.0
// Limits on snapshot text before it becomes values: how deep values may nest and how far YAML
// aliases may expand a document. Both guard the recursive code after parsing (the YAML
// composer, toJS, the loader, JSON output) from a stack overflow or an exponential expansion,
// and both are checked by loops, never by recursion, so the check itself cannot overflow.
import { isAlias, isMap, isPair, isScalar, isSeq, type Document } from 'yaml';

/**
 * The deepest nesting kpol reads. Real Kubernetes objects nest about 15 levels (a pod's
 * required node affinity is among the deepest); 200 leaves room for anything real while staying
 * well below where the YAML parser's own recursion overflows (~400 flow levels on Node 20).
 */
export const MAX_NESTING = 200;

/** An alias-expanded YAML document may hold at most this factor × its written nodes, plus ALIAS_SLACK. */
export const ALIAS_GROWTH = 2;
export const ALIAS_SLACK = 10_000;

export const nestingMessage = `values nest deeper than ${MAX_NESTING} levels (the most kpol reads)`;

/** Offset of the first `[`/`{` that opens level MAX_NESTING + 1 in JSON text, if any. */
export function jsonTooDeepAt(text: string): number | undefined {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // skip the string; an unterminated one ends the scan (the syntax check reports it)
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > MAX_NESTING) return i;
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--;
    }
  }
  return undefined;
}

export interface YamlLimitProblem {
  offset: number;
  message: string;
}

const childrenOf = (node: unknown, doc: Document): unknown[] => {
  if (isMap(node) || isSeq(node)) {
    const out: unknown[] = [];
    for (const item of node.items as unknown[]) {
      if (isPair(item)) out.push(item.key, item.value);
      else out.push(item);
    }
    return out;
  }
  if (isAlias(node)) {
    const target = node.resolve(doc);
    return target ? [target] : [];
  }
  return [];
};

const offsetOf = (node: unknown): number => {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  return range ? range[0] : 0;
};

/**
 * Walks a composed YAML document without recursion: nesting (aliases followed) must stay within
 * MAX_NESTING, an alias must not refer to a node that contains it (toJS would build a cycle),
 * and aliases must not expand the document beyond ALIAS_GROWTH × its written nodes + ALIAS_SLACK.
 */
export function yamlLimitProblem(doc: Document): YamlLimitProblem | undefined {
  const root = doc.contents;
  if (root === null || typeof root !== 'object') return undefined;
  const expanded = new Map<unknown, { size: number; depth: number }>(); // finished nodes
  const open = new Set<unknown>();
  let written = 0;
  let collections = 0; // maps and sequences on the stack: the nesting depth
  const stack: { node: unknown; children: unknown[]; next: number; size: number; depth: number }[] = [];
  const tooBig = (size: number): YamlLimitProblem | undefined =>
    size > ALIAS_GROWTH * written + ALIAS_SLACK
      ? {
          offset: 0,
          message:
            `YAML aliases expand this document to more than ${ALIAS_GROWTH * written + ALIAS_SLACK} values ` +
            `from ${written} written ones (at most ${ALIAS_GROWTH}× plus ${ALIAS_SLACK} are read)`,
        }
      : undefined;
  const enter = (node: unknown): YamlLimitProblem | undefined => {
    if (isAlias(node)) {
      const target = node.resolve(doc);
      if (target && open.has(target)) {
        return { offset: offsetOf(node), message: `alias *${node.source} refers to a node that contains it` };
      }
    } else {
      written++;
    }
    if (isMap(node) || isSeq(node)) {
      if (++collections > MAX_NESTING) return { offset: offsetOf(node), message: nestingMessage };
    }
    if (isMap(node) || isSeq(node)) {
      // JSON objects, and so Kubernetes objects, have string keys; yaml would stringify a
      // collection key (also one reached through an alias, or a pair in a flow sequence) with
      // a process warning on stderr, outside any located message
      for (const item of node.items as unknown[]) {
        if (!isPair(item)) continue;
        const key: unknown = isAlias(item.key) ? item.key.resolve(doc) : item.key;
        if (key === null || key === undefined) continue;
        if (isMap(key) || isSeq(key)) {
          return { offset: offsetOf(item.key), message: 'a map key must be a plain value, found a collection' };
        }
        // a tagged key such as `!!binary` becomes bytes, which yaml stringifies with the same warning
        const value = isScalar(key) ? key.value : undefined;
        if (value !== null && !['string', 'number', 'boolean', 'bigint'].includes(typeof value)) {
          return { offset: offsetOf(item.key), message: 'a map key must be a plain value (a string)' };
        }
      }
    }
    open.add(node);
    stack.push({ node, children: childrenOf(node, doc), next: 0, size: 1, depth: 0 });
    return undefined;
  };
  const first = enter(root);
  if (first) return first;
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.next < top.children.length) {
      const child = top.children[top.next++];
      if (child === null || typeof child !== 'object') continue;
      const known = isAlias(top.node) ? expanded.get(child) : undefined;
      if (known !== undefined) {
        // an alias's target was finished before the alias (YAML order): its figures are final
        if (collections + known.depth > MAX_NESTING) return { offset: offsetOf(top.node), message: nestingMessage };
        top.size += known.size;
        top.depth = Math.max(top.depth, known.depth);
        continue;
      }
      const problem = enter(child);
      if (problem) return problem;
      continue;
    }
    stack.pop();
    open.delete(top.node);
    const collection = isMap(top.node) || isSeq(top.node);
    if (collection) collections--;
    const size = isAlias(top.node) ? top.size - 1 : top.size;
    const depth = top.depth + (collection ? 1 : 0);
    if (!isAlias(top.node)) expanded.set(top.node, { size, depth });
    const parent = stack[stack.length - 1];
    if (parent) {
      parent.size += size;
      parent.depth = Math.max(parent.depth, depth);
    }
    // sizes are only counted (aliases are never walked twice), so a bomb costs its written size
    else return tooBig(size);
  }
  return undefined;
}
