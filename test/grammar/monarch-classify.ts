// SPDX-License-Identifier: Apache-2.0
// Applies the Monarch root rules the way Monaco does (the first rule that matches at the current
// position wins) and returns `kind:text` per token, whitespace left out.
import { kpolMonarch } from '../../grammar/monarch.js';

export function classify(text: string): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > 0) {
    const rule = kpolMonarch.tokenizer['root']!.find(([re]) => new RegExp(`^(?:${re.source})`).test(rest));
    if (!rule) throw new Error(`no rule matches ${rest}`);
    const image = new RegExp(`^(?:${rule[0].source})`).exec(rest)![0];
    const action = rule[1];
    const kind =
      typeof action === 'string'
        ? action
        : kpolMonarch.keywords.includes(image)
          ? action.cases['@keywords']!
          : kpolMonarch.reasons.includes(image)
            ? action.cases['@reasons']!
            : action.cases['@default']!;
    if (kind !== 'white') out.push(`${kind}:${image}`);
    rest = rest.slice(image.length);
  }
  return out;
}
