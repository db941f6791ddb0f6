// SPDX-License-Identifier: Apache-2.0
// fast-check arbitraries that build valid .kpol texts from every construct, with random
// whitespace and comments between tokens.
import fc from 'fast-check';

const name = fc.constantFrom('default', 'gpu', 'a-b', 'x.y/z', 'never-x', 'windows-pool', 'n1');
const key = fc.constantFrom('app', 'tier', 'topology.kubernetes.io/zone', 'karpenter.sh/capacity-type');
const reason = fc.constantFrom('Empty', 'Drifted', 'Underutilized', 'Expired', 'Drifed');
const duration = fc.constantFrom('30s', '5m', '1h30m', '720h', '7d', '1h30m0s');
const quantity = fc.oneof(
  fc.nat(50).map(String),
  fc.nat(100).map((n) => `${n}%`),
);
const quoted = fc
  .string({ unit: fc.constantFrom('a', 'b', ' ', '*', '"', '\\', '-', '/', '0', '9', 'é'), maxLength: 12 })
  .map((s) => `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`);
const value = fc.oneof(quoted, name, fc.nat(9).map(String), fc.constant('never'));

const list = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T[]> => fc.array(arb, { minLength: 1, maxLength: 3 });
const commaList = (items: string[]): string[] => items.flatMap((x, i) => (i === 0 ? [x] : [',', x]));
const opt = (arb: fc.Arbitrary<string[]>): fc.Arbitrary<string[]> =>
  fc.option(arb, { nil: undefined }).map((x) => x ?? []);

const reasons = list(reason).map(commaList);
const window = fc
  .tuple(
    fc.oneof(quoted, fc.constant('nightly')),
    opt(duration.map((d) => ['for', d])),
    opt(quoted.map((z) => ['in', z])),
  )
  .map(([s, d, z]) => [s, ...d, ...z]);
const requirement: fc.Arbitrary<string[]> = fc.oneof(
  fc.tuple(key, fc.constantFrom('=', '==', '!='), value).map((t) => [...t]),
  fc.tuple(key, fc.constantFrom('in', 'notin'), list(value)).map(([k, op, vs]) => [k, op, '(', ...commaList(vs), ')']),
  key.map((k) => [k, 'exists']),
  key.map((k) => [k, 'not', 'exists']),
  key.map((k) => ['!', k]),
);
const selector = fc
  .tuple(requirement, fc.array(fc.tuple(fc.constantFrom('and', ','), requirement), { maxLength: 2 }))
  .map(([first, rest]) => [...first, ...rest.flatMap(([j, r]) => [j, ...r])]);
const after = fc.oneof(duration, fc.constant('never')).map((d) => ['after', d]);

const statement: fc.Arbitrary<string[]> = fc.oneof(
  fc.constant<string[]>(['consolidate', 'never']),
  fc
    .tuple(fc.constantFrom(['empty'], ['empty', 'or', 'underutilized'], ['balanced']), opt(after))
    .map(([w, a]) => ['consolidate', 'when', ...w, ...a]),
  after.map((a) => ['consolidate', ...a]),
  fc.constant<string[]>(['expire', 'never']),
  fc.tuple(after, fc.boolean()).map(([a, g]) => ['expire', ...a, ...(g ? ['gracefully'] : [])]),
  duration.map((d) => ['termination', 'grace', d]),
  quoted.map((z) => ['timezone', z]),
  fc
    .tuple(quantity, opt(reasons.map((r) => ['for', ...r])), opt(window.map((w) => ['during', ...w])))
    .map(([q, r, w]) => ['budget', q, ...r, ...w]),
  fc.tuple(quantity, opt(reasons), window).map(([q, r, w]) => ['allow', q, ...r, 'only', 'during', ...w]),
  fc
    .tuple(opt(reasons), quoted, quoted, opt(quoted.map((z) => ['in', z])))
    .map(([r, a, b, z]) => ['freeze', ...r, 'from', a, 'to', b, ...z]),
  fc
    .tuple(
      opt(selector.map((s) => ['where', ...s])),
      opt(list(name).map((n) => ['in', 'namespace', ...commaList(n)])),
      fc.constantFrom('only', 'never'),
      window,
    )
    .map(([s, n, m, w]) => ['pods', ...s, ...n, 'disruptable', m, 'during', ...w]),
  fc
    .tuple(
      name,
      reasons,
      opt(selector.map((s) => ['on', 'nodes', 'where', ...s])),
      opt(list(window).map((ws) => ['during', ...ws.flatMap((w, i) => (i === 0 ? w : [',', ...w]))])),
    )
    .map(([n, r, s, w]) => ['window', n, 'blocks', ...r, ...s, ...w]),
);

const target = fc.oneof(
  fc.tuple(fc.constantFrom('nodepool', 'nodepools'), list(name)).map(([k, ns]) => [k, ...commaList(ns)]),
  selector.map((s) => ['nodepools', 'where', ...s]),
);
const policy = fc
  .tuple(name, target, fc.array(statement, { maxLength: 6 }))
  .map(([n, t, ss]) => ['policy', n, 'for', ...t, '{', ...ss.flat(), '}']);
const scheduleDecl = fc
  .tuple(name, quoted, opt(duration.map((d) => ['for', d])), opt(quoted.map((z) => ['in', z])))
  .map(([n, c, d, z]) => ['schedule', n, '=', c, ...d, ...z]);

/** The tokens of a valid file, in order. */
export const fileTokens: fc.Arbitrary<string[]> = fc
  .array(fc.oneof(policy, scheduleDecl), { maxLength: 3 })
  .map((items) => items.flat());

const separator = fc.constantFrom(' ', ' ', ' ', '\n', '\n  ', '\t', '  # note\n', ' // x\n', '\r\n', '\n\n');

/** Joins tokens with random whitespace and comments. */
export function joinTokens(tokens: string[]): fc.Arbitrary<string> {
  return fc
    .tuple(fc.array(separator, { minLength: tokens.length + 1, maxLength: tokens.length + 1 }))
    .map(([seps]) => seps[0] + tokens.map((t, i) => t + seps[i + 1]).join(''));
}

/** A valid .kpol text. */
export const validText: fc.Arbitrary<string> = fileTokens.chain(joinTokens);

const edit = fc.tuple(
  fc.constantFrom('delete', 'insert', 'duplicate'),
  fc.nat(),
  fc.constantFrom('{', '}', '"', 'budget', 'for', ',', '(', 'during', '5', '@', 'where', '='),
);

/** Random edits of a valid token list: delete, insert or duplicate tokens. */
export const mutatedText: fc.Arbitrary<string> = fileTokens
  .chain((tokens) => fc.tuple(fc.constant(tokens), fc.array(edit, { minLength: 1, maxLength: 4 })))
  .map(([tokens, edits]) => {
    const out = [...tokens];
    for (const [op, at, extra] of edits) {
      const i = out.length === 0 ? 0 : at % out.length;
      if (op === 'delete') out.splice(i, 1);
      else if (op === 'insert') out.splice(i, 0, extra);
      else if (out[i] !== undefined) out.splice(i, 0, out[i]!);
    }
    return out;
  })
  .chain(joinTokens);

/**
 * Blanks the Chevrotain lexer skips but the fast lexer leaves to it (inside a string or comment
 * they are taken): a clean text with one of them may take the slower path, never a wrong one.
 */
export const RARE_BLANK = /[\u00a0\ufeff]/;
