// SPDX-License-Identifier: Apache-2.0
// Mutations of generated `.kpol` text for the fuzz suite: token deletions, insertions and swaps,
// random characters (control characters, lone surrogates, emoji), truncation at any offset, and
// huge lines. Mostly invalid on purpose: the pipeline must reject them with located diagnostics.
import fc from 'fast-check';
import { policyFileArb } from './policy-arbitraries.js';

/** Words, punctuation and troublemakers that the lexer and parser treat specially. */
const VOCABULARY = [
  'policy',
  'for',
  'nodepool',
  'nodepools',
  'where',
  '{',
  '}',
  '(',
  ')',
  ',',
  '=',
  '==',
  '!=',
  '!',
  'in',
  'notin',
  'exists',
  'not',
  'and',
  'consolidate',
  'when',
  'empty',
  'or',
  'underutilized',
  'balanced',
  'after',
  'never',
  'expire',
  'gracefully',
  'termination',
  'grace',
  'timezone',
  'budget',
  'allow',
  'only',
  'during',
  'freeze',
  'from',
  'to',
  'pods',
  'namespace',
  'disruptable',
  'window',
  'blocks',
  'on',
  'nodes',
  'schedule',
  'Empty',
  'Drifted',
  'Underutilized',
  'Expired',
  '10%',
  '%',
  '10 %',
  '%20',
  '5',
  '1h',
  '500ms',
  '106752d',
  '99999999999999999999',
  '"',
  '"unterminated',
  '"@daily"',
  '"0 0 29 2 *"',
  '"Europe/Berlin"',
  '#',
  '//',
  '\n',
  '\r',
  '\r\n',
  '\t',
  '\u0000',
  '\uFEFF',
  '\uD800',
  '😀',
  '\u2028',
  'constructor',
  '__proto__',
  'toString',
  '-',
  '/',
  '.',
  ';',
  ':',
  '@',
  '\\',
];

/** Splits into tokens and the separators between them, so that joining gives the text back. */
const pieces = (text: string): string[] => text.split(/(\s+|[{}(),=!"%])/).filter((p) => p !== '');

type Mutation = (text: string) => fc.Arbitrary<string>;

const deleteToken: Mutation = (text) => {
  const ps = pieces(text);
  return fc.nat({ max: Math.max(0, ps.length - 1) }).map((i) => [...ps.slice(0, i), ...ps.slice(i + 1)].join(''));
};
const insertToken: Mutation = (text) => {
  const ps = pieces(text);
  return fc
    .tuple(fc.nat({ max: ps.length }), fc.constantFrom(...VOCABULARY), fc.boolean())
    .map(([i, w, spaced]) => [...ps.slice(0, i), spaced ? ` ${w} ` : w, ...ps.slice(i)].join(''));
};
const swapTokens: Mutation = (text) => {
  const ps = pieces(text);
  const index = fc.nat({ max: Math.max(0, ps.length - 1) });
  return fc.tuple(index, index).map(([i, j]) => {
    const out = [...ps];
    [out[i], out[j]] = [out[j]!, out[i]!];
    return out.join('');
  });
};
const randomCharacters: Mutation = (text) =>
  fc
    .tuple(fc.nat({ max: text.length }), fc.nat({ max: 8 }), fc.string({ unit: 'binary', maxLength: 12 }))
    .map(([at, cut, junk]) => text.slice(0, at) + junk + text.slice(Math.min(text.length, at + cut)));
const truncate: Mutation = (text) => fc.nat({ max: text.length }).map((n) => text.slice(0, n));
/** One line of up to ~24 KB: a repeated word, with or without spaces, inside or outside a policy. */
const hugeLine: Mutation = (text) =>
  fc
    .tuple(
      fc.nat({ max: text.length }),
      fc.constantFrom(...VOCABULARY),
      fc.integer({ min: 100, max: 3000 }),
      fc.constantFrom('', ' '),
    )
    .map(([at, word, n, sep]) => text.slice(0, at) + `${word}${sep}`.repeat(n) + text.slice(at));
const repeatStatements: Mutation = (text) => fc.integer({ min: 2, max: 20 }).map((n) => text.repeat(n));

const MUTATIONS: Mutation[] = [
  deleteToken,
  insertToken,
  swapTokens,
  randomCharacters,
  truncate,
  hugeLine,
  repeatStatements,
];

/** A generated file with one to three mutations applied in turn. */
export const mutatedPolicyArb: fc.Arbitrary<string> = fc
  .tuple(policyFileArb, fc.array(fc.nat({ max: MUTATIONS.length - 1 }), { minLength: 1, maxLength: 3 }))
  .chain(([text, kinds]) =>
    kinds.reduce<fc.Arbitrary<string>>((acc, k) => acc.chain((t) => MUTATIONS[k]!(t)), fc.constant(text)),
  );

/** Bytes that are not text at all, decoded as the CLI decodes a file (UTF-8, replacement characters). */
export const randomBytesArb: fc.Arbitrary<string> = fc
  .uint8Array({ maxLength: 2000 })
  .map((bytes) => new TextDecoder('utf-8').decode(bytes));
