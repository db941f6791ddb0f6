// SPDX-License-Identifier: Apache-2.0
// A tiny element builder: text always goes in as text, never as HTML.
type Child = Node | string | number | null | undefined | false;

export function h(
  tag: string,
  attrs: Record<string, string | number | boolean | undefined> = {},
  ...children: Child[]
): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs))
    if (v !== undefined && v !== false) el.setAttribute(k, v === true ? '' : String(v));
  for (const c of children)
    if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'object' ? c : String(c));
  return el;
}

export function replaceChildren(el: Element, ...children: Child[]): void {
  el.replaceChildren(
    ...children
      .filter((c): c is Node | string | number => c !== null && c !== undefined && c !== false)
      .map((c) => (typeof c === 'object' ? c : String(c))),
  );
}
