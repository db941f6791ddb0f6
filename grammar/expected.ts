// SPDX-License-Identifier: Apache-2.0
// Chevrotain error-message provider that yields only the "expected …" phrase (e.g. "`{`",
// "a duration or `never`"); parse.ts puts it into the catalog's KPOL1003/KPOL1004 templates.
import { EOF, type IParserErrorMessageProvider, type TokenType } from 'chevrotain';

/** The phrase for one token type: its label (`` `{` ``, "a duration") or its name. */
export function describeToken(type: TokenType): string {
  if (type === EOF) return 'the end of input';
  return type.LABEL ?? type.name;
}

/** Joins phrases as "a, b or c", dropping duplicates and keeping order. */
export function joinAlternatives(phrases: readonly string[]): string {
  const unique = [...new Set(phrases)];
  if (unique.length <= 1) return unique[0] ?? 'something else';
  return `${unique.slice(0, -1).join(', ')} or ${unique[unique.length - 1]}`;
}

function firstTokens(paths: TokenType[][]): string[] {
  return paths.filter((p) => p.length > 0).map((p) => describeToken(p[0]!));
}

/** Message provider for the kpol parser: every message is an "expected" phrase. */
export const expectedPhraseProvider: IParserErrorMessageProvider = {
  buildMismatchTokenMessage: ({ expected }) => describeToken(expected),
  buildNotAllInputParsedMessage: () => 'the end of input',
  buildNoViableAltMessage: ({ expectedPathsPerAlt, customUserDescription }) =>
    customUserDescription ?? joinAlternatives(expectedPathsPerAlt.flatMap(firstTokens)),
  buildEarlyExitMessage: ({ expectedIterationPaths, customUserDescription }) =>
    customUserDescription ?? joinAlternatives(firstTokens(expectedIterationPaths)),
};
