// SPDX-License-Identifier: Apache-2.0
// Just enough HTML reading for the report tests: tag balance and element attributes.

const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);

/** Problems with tag nesting; empty when every element is closed in order. */
export function tagBalanceErrors(html: string): string[] {
  const text = html
    .replace(/<!doctype[^>]*>/i, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/(<style[^>]*>)[\s\S]*?(<\/style>)/g, '$1$2');
  const errors: string[] = [];
  const stack: string[] = [];
  for (const m of text.matchAll(/<(\/?)([a-zA-Z][\w-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g)) {
    const [, closing, rawName, attrs] = m;
    const name = rawName.toLowerCase();
    if (closing) {
      const open = stack.pop();
      if (open !== name) errors.push(`</${name}> closes <${open ?? 'nothing'}> at ${m.index}`);
    } else if (!VOID.has(name) && !attrs.trimEnd().endsWith('/')) stack.push(name);
  }
  if (stack.length) errors.push(`unclosed: ${stack.join(' > ')}`);
  if (/<(?![a-zA-Z/!])/.test(text.replace(/<style>[\s\S]*?<\/style>/g, ''))) errors.push('stray "<" in text');
  return errors;
}

/** Attribute maps of every start tag named `tag` (in document order). */
export function elements(html: string, tag: string): Record<string, string>[] {
  const out: Record<string, string>[] = [];
  for (const m of html.matchAll(new RegExp(`<${tag}\\b([^>]*)>`, 'g'))) {
    const attrs: Record<string, string> = {};
    for (const a of m[1].matchAll(/([\w-]+)="([^"]*)"/g)) attrs[a[1]] = a[2];
    out.push(attrs);
  }
  return out;
}
