// SPDX-License-Identifier: Apache-2.0
// Small readers over Chevrotain CST nodes for the lowering. A token "is real" when it was in
// the source, as opposed to one inserted by error recovery (which has no position).
import type { CstElement, CstNode, IToken } from 'chevrotain';

function isToken(element: CstElement): element is IToken {
  return 'image' in element;
}

/** Whether `token` comes from the source text (not inserted by recovery). */
export function isReal(token: IToken | undefined): token is IToken {
  return token !== undefined && token.isInsertedInRecovery !== true && Number.isFinite(token.startOffset);
}

/** The real tokens stored under `key` (a token type name), in source order. */
export function tokensOf(node: CstNode | undefined, key: string): IToken[] {
  const found = (node?.children[key] ?? []).filter(isToken).filter(isReal);
  return found.sort((a, b) => a.startOffset - b.startOffset);
}

/** The first real token stored under `key`. */
export function tokenOf(node: CstNode | undefined, key: string): IToken | undefined {
  return tokensOf(node, key)[0];
}

/** The sub-rule nodes stored under `key` (a rule name), in source order. */
export function nodesOf(node: CstNode | undefined, key: string): CstNode[] {
  const found = (node?.children[key] ?? []).filter((e): e is CstNode => !isToken(e));
  return found.sort((a, b) => (spanOf(a)?.start ?? 0) - (spanOf(b)?.start ?? 0));
}

/** The first sub-rule node stored under `key`. */
export function nodeOf(node: CstNode | undefined, key: string): CstNode | undefined {
  return nodesOf(node, key)[0];
}

/** The only child rule of an alternation rule such as `statement`. */
export function onlyChild(node: CstNode): CstNode | undefined {
  for (const elements of Object.values(node.children)) {
    for (const element of elements) if (!isToken(element)) return element;
  }
  return undefined;
}

/** Offsets `[start, end)` covered by the real tokens of `node`, or undefined when it has none. */
export function spanOf(node: CstNode): { start: number; end: number } | undefined {
  let start = Infinity;
  let end = -Infinity;
  const visit = (n: CstNode): void => {
    for (const elements of Object.values(n.children)) {
      for (const element of elements) {
        if (!isToken(element)) visit(element);
        else if (isReal(element)) {
          start = Math.min(start, element.startOffset);
          end = Math.max(end, element.startOffset + element.image.length);
        }
      }
    }
  };
  visit(node);
  return start === Infinity ? undefined : { start, end };
}

/** Whether recovery touched `node`: a sub-rule was cut short or a token was invented. */
export function wasRecovered(node: CstNode): boolean {
  if (node.recoveredNode) return true;
  for (const elements of Object.values(node.children)) {
    for (const element of elements) {
      if (isToken(element) ? !isReal(element) : wasRecovered(element)) return true;
    }
  }
  return false;
}

/** Every real token of `node`, in source order. */
export function allTokensOf(node: CstNode): IToken[] {
  const out: IToken[] = [];
  const visit = (n: CstNode): void => {
    for (const elements of Object.values(n.children)) {
      for (const element of elements) {
        if (!isToken(element)) visit(element);
        else if (isReal(element)) out.push(element);
      }
    }
  };
  visit(node);
  return out.sort((a, b) => a.startOffset - b.startOffset);
}
