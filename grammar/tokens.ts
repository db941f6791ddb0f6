// SPDX-License-Identifier: Apache-2.0
// Token definitions shared by the lexer, the parser, the formatter and the Monaco Monarch
// definition. The order of `allTokens` is the lexer's priority order.
import { createToken, Lexer, type TokenType } from 'chevrotain';

/**
 * Any word usable as a name: `Name` plus the soft keywords (policy and nodepool names, label keys and values,
 * namespaces).
 */
export const Identifier = createToken({ name: 'Identifier', pattern: Lexer.NA, label: 'a name' });
/**
 * Every token that may appear inside an unknown statement: all but statement keywords, `}`, `policy` and `schedule`.
 */
export const StatementJunk = createToken({ name: 'StatementJunk', pattern: Lexer.NA });
/** Every token that may appear in unknown top-level text: all but `policy` and `schedule`. */
export const TopLevelJunk = createToken({ name: 'TopLevelJunk', pattern: Lexer.NA });

const anywhere = [StatementJunk, TopLevelJunk];

/**
 * A label key, name or bare value: letters, digits, `_`, `-`, `.` and `/` (but never `//`,
 * which starts a comment).
 */
export const NAME_PATTERN = /[A-Za-z0-9_](?:[A-Za-z0-9_.-]|\/(?!\/))*/;
export const Name = createToken({
  name: 'Name',
  pattern: NAME_PATTERN,
  label: 'a name',
  categories: [Identifier, ...anywhere],
});

export const WhiteSpace = createToken({
  name: 'WhiteSpace',
  pattern: /[ \t\r\n\f\v\u00a0\ufeff]+/,
  group: Lexer.SKIPPED,
});
export const COMMENT_PATTERN = /(?:#|\/\/)[^\r\n]*/;
/** `#` or `//` to the end of the line; kept aside in the `comments` group for the formatter. */
export const Comment = createToken({ name: 'Comment', pattern: COMMENT_PATTERN, group: 'comments' });

export const STRING_PATTERN = /"(?:[^"\\\r\n]|\\[^\r\n])*"/;
export const StringLit = createToken({
  name: 'StringLit',
  pattern: STRING_PATTERN,
  label: 'a string',
  categories: anywhere,
});
/** A string missing its closing quote: the parser accepts it as a string, the lexer reports it. */
export const UnterminatedString = createToken({
  name: 'UnterminatedString',
  label: 'a string',
  pattern: /"(?:[^"\\\r\n]|\\[^\r\n]?)*/,
  categories: [StringLit, ...anywhere],
});

/** One or more `<digits><unit>` groups; whether the value makes sense is decided in rules/. */
export const DURATION_PATTERN = /(?:\d+(?:ms|s|m|h|d))+/;
export const Duration = createToken({
  name: 'Duration',
  pattern: DURATION_PATTERN,
  label: 'a duration',
  longer_alt: Name,
  categories: anywhere,
});
export const PERCENT_PATTERN = /\d+(?:\.\d+)?%/;
export const Percent = createToken({
  name: 'Percent',
  pattern: PERCENT_PATTERN,
  label: 'a percentage',
  categories: anywhere,
});
/**
 * `10 %` and `%10`: a percentage written apart or the wrong way round. The parser takes either as
 * a percentage, so the statement still lowers; the lexer reports it with the fix.
 */
export const SpacedPercent = createToken({
  name: 'SpacedPercent',
  pattern: /\d+(?:\.\d+)?[ \t]+%/,
  label: 'a percentage',
  categories: [Percent, ...anywhere],
});
export const PercentFirst = createToken({
  name: 'PercentFirst',
  pattern: /%[ \t]*\d+(?:\.\d+)?/,
  label: 'a percentage',
  categories: [Percent, ...anywhere],
});
/** Decimals lex as numbers so that `budget 1.5` gets a precise "not a whole number" error. */
export const NUMBER_PATTERN = /\d+(?:\.\d+)?/;
export const NumberLit = createToken({
  name: 'NumberLit',
  pattern: NUMBER_PATTERN,
  label: 'a number',
  longer_alt: Name,
  categories: anywhere,
});

export const LCurly = createToken({ name: 'LCurly', pattern: '{', label: '`{`', categories: anywhere });
export const RCurly = createToken({ name: 'RCurly', pattern: '}', label: '`}`', categories: [TopLevelJunk] });
export const LParen = createToken({ name: 'LParen', pattern: '(', label: '`(`', categories: anywhere });
export const RParen = createToken({ name: 'RParen', pattern: ')', label: '`)`', categories: anywhere });
export const Comma = createToken({ name: 'Comma', pattern: ',', label: '`,`', categories: anywhere });
export const DoubleEquals = createToken({ name: 'DoubleEquals', pattern: '==', label: '`==`', categories: anywhere });
export const Equals = createToken({ name: 'Equals', pattern: '=', label: '`=`', categories: anywhere });
export const NotEquals = createToken({ name: 'NotEquals', pattern: '!=', label: '`!=`', categories: anywhere });
export const Bang = createToken({ name: 'Bang', pattern: '!', label: '`!`', categories: anywhere });

/** How a keyword behaves beyond being a reserved word. */
interface KeywordRole {
  /** Starts a statement inside a policy body (used to resynchronise after errors). */
  statement?: boolean;
  /** Starts a top-level declaration. */
  topLevel?: boolean;
  /** May also be used where a name is expected (policy/nodepool names, label keys and values). */
  soft?: boolean;
}

const keywordRoles: Record<string, KeywordRole> = {
  schedule: { topLevel: true, soft: true },
  policy: { topLevel: true, soft: true },
  cluster: { topLevel: true, soft: true },
  consolidate: { statement: true, soft: true },
  expire: { statement: true, soft: true },
  termination: { statement: true, soft: true },
  timezone: { statement: true, soft: true },
  budget: { statement: true, soft: true },
  allow: { statement: true, soft: true },
  freeze: { statement: true, soft: true },
  pods: { statement: true, soft: true },
  window: { statement: true, soft: true },
  nodepools: { soft: true },
  nodepool: { soft: true },
  namespace: { soft: true },
  nodes: { soft: true },
  never: { soft: true },
  empty: { soft: true },
  underutilized: { soft: true },
  balanced: { soft: true },
  gracefully: { soft: true },
  grace: { soft: true },
  exists: { soft: true },
  // `budget 2 per 1h` (a rate budget) and `budget … per reason` (independent reason buckets);
  // soft, so label keys and values keep them
  per: { soft: true },
  reason: { soft: true },
  disruptable: {},
  during: {},
  blocks: {},
  where: {},
  notin: {},
  after: {},
  when: {},
  only: {},
  from: {},
  for: {},
  and: {},
  not: {},
  in: {},
  or: {},
  on: {},
  to: {},
};

function keywordCategories(role: KeywordRole): TokenType[] {
  const categories: TokenType[] = [];
  if (role.soft) categories.push(Identifier);
  if (!role.topLevel) categories.push(TopLevelJunk);
  if (!role.topLevel && !role.statement) categories.push(StatementJunk);
  return categories;
}

/**
 * A keyword has no pattern of its own: the lexer matches every word as a `Name` and gives it the
 * keyword's type when the whole word is one (lexer.ts). That is what a keyword pattern with
 * `longer_alt: Name` would decide, without trying each keyword of the same first letter at every
 * word.
 */
function makeKeyword(word: string): TokenType {
  const name = `Kw${word[0]!.toUpperCase()}${word.slice(1)}`;
  return createToken({
    name,
    pattern: Lexer.NA,
    label: `\`${word}\``,
    categories: keywordCategories(keywordRoles[word]!),
  });
}

/** Keyword token per word, e.g. `kw.policy`. */
export const kw: Readonly<Record<string, TokenType>> = Object.fromEntries(
  Object.keys(keywordRoles).map((word) => [word, makeKeyword(word)]),
);

/** The keyword type of a word spelt exactly as a keyword (case matters). */
export const KEYWORD_OF_WORD: ReadonlyMap<string, TokenType> = new Map(Object.entries(kw));

/** Every keyword as written in source, longest first. */
export const KEYWORDS: readonly string[] = Object.keys(keywordRoles).sort(
  (a, b) => b.length - a.length || a.localeCompare(b),
);
/** Keywords that start a statement in a policy body. */
export const STATEMENT_KEYWORDS: readonly string[] = KEYWORDS.filter((w) => keywordRoles[w]!.statement);
/** Keywords that may also be used as names. */
export const SOFT_KEYWORDS: readonly string[] = KEYWORDS.filter((w) => keywordRoles[w]!.soft);

/** Disruption reasons known to Karpenter; the lexer treats them as names, the editor highlights them. */
export const REASONS: readonly string[] = ['Empty', 'Drifted', 'Underutilized', 'Expired'];

/** Lexer priority order: durations before numbers; keywords are found among names (`KEYWORD_OF_WORD`). */
export const allTokens: TokenType[] = [
  WhiteSpace,
  Comment,
  StringLit,
  UnterminatedString,
  LCurly,
  RCurly,
  LParen,
  RParen,
  Comma,
  DoubleEquals,
  Equals,
  NotEquals,
  Bang,
  SpacedPercent,
  PercentFirst,
  Duration,
  Percent,
  NumberLit,
  ...KEYWORDS.map((w) => kw[w]!),
  Name,
  Identifier,
  StatementJunk,
  TopLevelJunk,
];
