// SPDX-License-Identifier: Apache-2.0
// Small readers over Chevrotain CST nodes for the lowering. A token "is real" when it was in
// the source, as opposed to one inserted by error recovery (which has no position). The readers
// take the node types generated from the grammar (grammar/cst-types.ts): the key must be a child
// that rule has, of the right sort, so a misspelt key does not compile.
import type { CstElement, CstNode, IToken } from 'chevrotain';

function isToken(element: CstElement): element is IToken {
  return 'image' in element;
}

/** Whether `token` comes from the source text (not inserted by recovery). */
export function isReal(token: IToken | undefined): token is IToken {
  return token !== undefined && token.isInsertedInRecovery !== true && Number.isFinite(token.startOffset);
}

const NONE: readonly CstElement[] = [];

type ChildrenOf<N extends CstNode> = N['children'];
/** The children of `N` that hold tokens. */
export type TokenKey<N extends CstNode> = {
  [K in keyof ChildrenOf<N>]-?: NonNullable<ChildrenOf<N>[K]> extends IToken[] ? K : never;
}[keyof ChildrenOf<N>] &
  string;
/** The children of `N` that hold sub-rule nodes. */
export type NodeKey<N extends CstNode> = {
  [K in keyof ChildrenOf<N>]-?: NonNullable<ChildrenOf<N>[K]> extends CstNode[] ? K : never;
}[keyof ChildrenOf<N>] &
  string;
/** The node type stored under `K` of `N`. */
type NodeAt<N extends CstNode, K extends keyof ChildrenOf<N>> =
  NonNullable<ChildrenOf<N>[K]> extends (infer E)[] ? E : never;

function childrenOf(node: CstNode | undefined, key: string): readonly CstElement[] {
  return node?.children[key] ?? NONE;
}

/**
 * The real tokens stored under `key` (a token type name), in source order. The parser appends in
 * source order, so this is usually the CST's own list, which callers must not change.
 */
export function tokensOf<N extends CstNode>(node: N | undefined, key: TokenKey<N>): readonly IToken[] {
  const elements = childrenOf(node, key);
  let clean = true;
  for (let i = 0; i < elements.length && clean; i++) {
    const element = elements[i]!;
    clean =
      isToken(element) && isReal(element) && (i === 0 || (elements[i - 1] as IToken).startOffset < element.startOffset);
  }
  if (clean) return elements as readonly IToken[];
  const found = elements.filter(isToken).filter(isReal);
  return found.sort((a, b) => a.startOffset - b.startOffset);
}

/** The first real token stored under `key`. */
export function tokenOf<N extends CstNode>(node: N | undefined, key: TokenKey<N>): IToken | undefined {
  const elements = childrenOf(node, key);
  // Most keys hold one token; lowering reads a great many of them.
  if (elements.length === 1) {
    const only = elements[0]!;
    return isToken(only) && isReal(only) ? only : undefined;
  }
  let first: IToken | undefined;
  for (const element of elements) {
    if (isToken(element) && isReal(element) && (!first || element.startOffset < first.startOffset)) first = element;
  }
  return first;
}

/** Where a sub-rule node sorts among its siblings: its first real offset, 0 when it has none. */
function sortKey(node: CstNode): number {
  const start = node.location?.startOffset;
  if (start === undefined) return spanOf(node)?.start ?? 0;
  return Number.isFinite(start) ? start : 0;
}

/** The sub-rule nodes stored under `key` (a rule name), in source order; like `tokensOf`, often the CST's own list. */
export function nodesOf<N extends CstNode, K extends NodeKey<N>>(node: N | undefined, key: K): readonly NodeAt<N, K>[] {
  const elements = childrenOf(node, key);
  let clean = true;
  for (let i = 0; i < elements.length && clean; i++) {
    const element = elements[i]!;
    clean = !isToken(element) && (i === 0 || sortKey(elements[i - 1] as CstNode) <= sortKey(element));
  }
  if (clean) return elements as readonly NodeAt<N, K>[];
  const found = elements.filter((e): e is CstNode => !isToken(e));
  return found.sort((a, b) => sortKey(a) - sortKey(b)) as NodeAt<N, K>[];
}

/** The first sub-rule node stored under `key`. */
export function nodeOf<N extends CstNode, K extends NodeKey<N>>(node: N | undefined, key: K): NodeAt<N, K> | undefined {
  const elements = childrenOf(node, key);
  if (elements.length === 1) {
    const only = elements[0]!;
    return (isToken(only) ? undefined : only) as NodeAt<N, K> | undefined;
  }
  let first: CstNode | undefined;
  for (const element of elements) {
    if (!isToken(element) && (!first || sortKey(element) < sortKey(first))) first = element;
  }
  return first as NodeAt<N, K> | undefined;
}

/** The only child rule of an alternation rule such as `statement`. */
export function onlyChild(node: CstNode): CstNode | undefined {
  for (const key in node.children) {
    for (const element of node.children[key]!) if (!isToken(element)) return element;
  }
  return undefined;
}

/**
 * Offsets `[start, end)` covered by the real tokens of `node`, or undefined when it has none.
 * Read from the location the parser tracks (`nodeLocationTracking: 'onlyOffset'`), which with
 * recovery on skips inserted tokens the same way; a CST built without it is walked instead.
 */
export function spanOf(node: CstNode): { start: number; end: number } | undefined {
  const location = node.location;
  if (!location) return walkedSpanOf(node);
  const { startOffset, endOffset } = location;
  return Number.isFinite(startOffset) && endOffset !== undefined
    ? { start: startOffset, end: endOffset + 1 }
    : undefined;
}

function walkedSpanOf(node: CstNode): { start: number; end: number } | undefined {
  const tokens = allTokensOf(node);
  if (tokens.length === 0) return undefined;
  let end = -Infinity;
  for (const t of tokens) end = Math.max(end, t.startOffset + t.image.length);
  return { start: tokens[0]!.startOffset, end };
}

/** Whether recovery touched `node`: a sub-rule was cut short or a token was invented. */
export function wasRecovered(node: CstNode): boolean {
  if (node.recoveredNode) return true;
  for (const key in node.children) {
    for (const element of node.children[key]!) {
      if (isToken(element) ? !isReal(element) : wasRecovered(element)) return true;
    }
  }
  return false;
}

/** Every real token of `node`, in source order. */
export function allTokensOf(node: CstNode): IToken[] {
  const out: IToken[] = [];
  collectTokens(node, out);
  return out.sort((a, b) => a.startOffset - b.startOffset);
}

function collectTokens(node: CstNode, out: IToken[]): void {
  for (const key in node.children) {
    for (const element of node.children[key]!) {
      if (!isToken(element)) collectTokens(element, out);
      else if (isReal(element)) out.push(element);
    }
  }
}
