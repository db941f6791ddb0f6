// SPDX-License-Identifier: Apache-2.0
// Long expected messages as a sequence of regular expressions, so that each part stays readable
// on its own line (a single literal cannot be broken across lines).

/** One regular expression matching the parts in order, with nothing between them. */
export function seq(...parts: RegExp[]): RegExp {
  return new RegExp(parts.map((p) => p.source).join(''));
}
