// SPDX-License-Identifier: Apache-2.0
// Deterministic single-line garbage for the output-size test and the bench: kpol words, stray
// characters and brackets in a mix that keeps the lexer, the parser's recovery and the checker
// all busy (no `#` or `"` that would swallow the rest of the line as a comment or string).
const WORDS = [
  'policy',
  'for',
  'nodepool',
  '{',
  '}',
  'budget',
  '10%',
  'after',
  '5m',
  '"x"',
  'where',
  'a=b',
  '(',
  ',',
  '@',
  '$',
  'during',
  'zz',
];

/** About `bytes` characters of garbage on one line; the same text for the same arguments. */
export function garbageLine(bytes: number, seed = 7): string {
  let state = seed;
  const out: string[] = [];
  let length = 0;
  while (length < bytes) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    const w = WORDS[state % WORDS.length]!;
    out.push(w);
    length += w.length + 1;
  }
  return out.join(' ').slice(0, bytes);
}

/** The reproducer: `policy ` repeated, one `expected for` per two words. */
export function repeatedPolicyLine(bytes: number): string {
  return 'policy '.repeat(Math.ceil(bytes / 7)).slice(0, bytes);
}

/** One statement of errors on one line: `budget 1 for A , , A , , …` (one error per `,`). */
export function longStatementLine(bytes: number): string {
  const head = 'policy a for nodepool x { budget 1 for ';
  return `${head}${'A , , '.repeat(Math.ceil((bytes - head.length - 2) / 6))}`.slice(0, bytes - 2) + ' }';
}
