// SPDX-License-Identifier: Apache-2.0
// The kpol grammar as a Chevrotain CstParser: syntax only, no semantic actions (lower.ts gives
// the CST meaning). Recovery is on. Unknown words inside a policy body are parsed as an
// `unknownStatement` that runs to the next statement keyword or `}`, so one bad statement
// never hides the ones after it; unknown text at top level runs to the next `policy` or
// `schedule`. The EBNF is in grammar/README.md.
import {
  CstParser,
  generateCstDts,
  type CstNode,
  type IOrAlt,
  type IRecognitionException,
  type IToken,
  type OrMethodOpts,
  type TokenType,
} from 'chevrotain';
import type { FileCstNode, PolicyCstNode } from './cst-types.js';
import { expectedPhraseProvider } from './expected.js';
import {
  allTokens,
  Bang,
  Comma,
  DoubleEquals,
  Duration,
  Equals,
  Identifier,
  kw,
  LCurly,
  LParen,
  Name,
  NotEquals,
  NumberLit,
  Percent,
  RCurly,
  RParen,
  StatementJunk,
  StringLit,
  TopLevelJunk,
} from './tokens.js';

const QUANTITY = 'a node count or percentage';
const SCHEDULE = 'a schedule (a quoted cron expression or a schedule name)';

/** Chevrotain 11.2 internals used by the resynchronisation override below. */
interface FollowInternals {
  buildFullFollowKeyStack(): unknown[];
  getFollowSetFromFollowKey(key: unknown): TokenType[] | undefined;
}

/** Chevrotain 11.2 internals used by the CST node overrides below. */
interface CstInternals {
  CST_STACK: CstNode[];
  setInitialNodeLocation(node: CstNode): void;
  setNodeLocationFromNode(into: CstNode['location'], from: CstNode['location']): void;
  cstPostNonTerminal(node: CstNode, ruleName: string): void;
}

type Alternatives = IOrAlt<unknown>[] | OrMethodOpts<unknown>;

/**
 * The kpol CST parser. Use the shared instance through `parseTokens`. The alternatives of every
 * `OR` are fields built once, not array literals in the rule bodies: those would allocate (and,
 * under tsx, name) a closure per alternative on every call of the rule.
 */
class KpolParser extends CstParser {
  /** `validate` runs Chevrotain's grammar checks (ambiguities, left recursion) while building. */
  constructor(validate: boolean) {
    // Offset tracking gives every CST node its span as it is built (cst.ts `spanOf`).
    super(allTokens, {
      recoveryEnabled: true,
      maxLookahead: 2,
      nodeLocationTracking: 'onlyOffset',
      errorMessageProvider: expectedPhraseProvider,
      skipValidations: !validate,
    });
    this.performSelfAnalysis();
  }

  /**
   * Chevrotain searches the follow sets of the rule stack outermost first when it resynchronises
   * after an error. With catch-all junk rules the outermost set (`file`) matches every token, so
   * a bad statement would abandon its whole policy. Searching innermost first makes the nearest
   * enclosing repetition (the policy body) take the recovery instead.
   */
  flattenFollowSet(): TokenType[] {
    const self = this as unknown as FollowInternals;
    return self
      .buildFullFollowKeyStack()
      .reverse()
      .flatMap((key) => self.getFollowSetFromFollowKey(key) ?? []);
  }

  /**
   * Chevrotain starts every CST node with a null-prototype `children` object, which V8 keeps in
   * dictionary mode; a plain object takes well under half the memory, and building the CST is
   * most of the garbage collector's work in a parse. No rule or token name is an
   * `Object.prototype` key, so lookups by name are unaffected.
   */
  cstInvocationStateUpdate(fullRuleName: string): void {
    const self = this as unknown as CstInternals;
    const node: CstNode = { name: fullRuleName, children: {} };
    self.setInitialNodeLocation(node);
    self.CST_STACK.push(node);
  }

  /** Receives each policy that parsed without any error so far, instead of the file node (`parseTokens`). */
  policyParsed: ((node: PolicyCstNode) => void) | undefined;

  /**
   * A policy completed while no error has been seen goes to `policyParsed` rather than into the
   * file node: lowered at once, its CST is garbage before the collector ever copies it, which on
   * a large file is much of the parse's cost. Recovery never revisits a completed policy, and
   * every later error lies after it, so its lowering is the one the whole CST would give.
   */
  cstPostNonTerminal(node: CstNode, ruleName: string): void {
    const self = this as unknown as CstInternals;
    if (ruleName === 'policy' && this.policyParsed && this.errors.length === 0 && self.CST_STACK.length === 1) {
      self.setNodeLocationFromNode(self.CST_STACK[0]!.location, node.location);
      this.policyParsed(node as PolicyCstNode);
      return;
    }
    (CstParser.prototype as unknown as CstInternals).cstPostNonTerminal.call(this, node, ruleName);
  }

  file = this.RULE('file', () => {
    this.MANY(() => this.OR(this.topLevelItem));
  });

  private readonly topLevelItem: Alternatives = [
    { ALT: () => this.SUBRULE(this.scheduleDecl) },
    { ALT: () => this.SUBRULE(this.policy) },
    { ALT: () => this.SUBRULE(this.clusterBudget) },
    { ALT: () => this.SUBRULE(this.topLevelJunk) },
  ];

  scheduleDecl = this.RULE('scheduleDecl', () => {
    this.CONSUME(kw.schedule!);
    this.CONSUME(Name, { ERR_MSG: 'a schedule name' });
    this.CONSUME(Equals);
    this.CONSUME(StringLit, { ERR_MSG: 'a quoted cron expression' });
    this.OPTION(() => this.SUBRULE(this.forDuration));
    this.OPTION2(() => this.SUBRULE(this.inZone));
  });

  policy = this.RULE('policy', () => {
    this.CONSUME(kw.policy!);
    this.CONSUME(Identifier, { ERR_MSG: 'a policy name' });
    this.CONSUME(kw.for!);
    this.SUBRULE(this.target);
    this.CONSUME(LCurly);
    this.MANY(() => this.SUBRULE(this.statement));
    this.CONSUME(RCurly);
  });

  /**
   * `cluster budget N [for REASONS] [during WINDOW] [on nodepools A, B]`: one budget over several
   * NodePools, declared beside the policies that govern them (rules/checks/cluster-budgets.ts).
   */
  clusterBudget = this.RULE('clusterBudget', () => {
    this.CONSUME(kw.cluster!);
    this.CONSUME(kw.budget!);
    this.SUBRULE(this.quantity);
    this.OPTION(() => {
      this.CONSUME(kw.for!);
      this.SUBRULE(this.reasons);
    });
    this.OPTION2(() => {
      this.CONSUME(kw.during!);
      this.SUBRULE(this.window);
    });
    this.OPTION3(() => {
      this.CONSUME(kw.on!);
      this.OR(this.nodepoolKeyword);
      this.SUBRULE(this.nameList);
    });
  });

  target = this.RULE('target', () => {
    this.OR(this.nodepoolKeyword);
    this.OR2(this.targetPools);
  });

  private readonly nodepoolKeyword: Alternatives = [
    { ALT: () => this.CONSUME(kw.nodepool!) },
    { ALT: () => this.CONSUME(kw.nodepools!) },
  ];

  private readonly targetPools: Alternatives = {
    DEF: [
      {
        ALT: () => {
          this.CONSUME(kw.where!);
          this.SUBRULE(this.selector);
        },
      },
      { ALT: () => this.SUBRULE(this.nameList) },
    ],
    ERR_MSG: 'NodePool names or `where`',
  };

  nameList = this.RULE('nameList', () => {
    this.CONSUME(Identifier);
    this.MANY(() => {
      this.CONSUME(Comma);
      this.CONSUME2(Identifier);
    });
  });

  statement = this.RULE('statement', () => {
    this.OR(this.statementKind);
  });

  private readonly statementKind: Alternatives = [
    { ALT: () => this.SUBRULE(this.consolidateStmt) },
    { ALT: () => this.SUBRULE(this.expireStmt) },
    { ALT: () => this.SUBRULE(this.terminationStmt) },
    { ALT: () => this.SUBRULE(this.timezoneStmt) },
    { ALT: () => this.SUBRULE(this.budgetStmt) },
    { ALT: () => this.SUBRULE(this.allowStmt) },
    { ALT: () => this.SUBRULE(this.freezeStmt) },
    { ALT: () => this.SUBRULE(this.podsStmt) },
    { ALT: () => this.SUBRULE(this.windowStmt) },
    { ALT: () => this.SUBRULE(this.unknownStmt) },
  ];

  consolidateStmt = this.RULE('consolidateStmt', () => {
    this.CONSUME(kw.consolidate!);
    this.OR(this.consolidateHow);
  });

  private readonly consolidateHow: Alternatives = {
    DEF: [
      { ALT: () => this.CONSUME(kw.never!) },
      {
        ALT: () => {
          this.CONSUME(kw.when!);
          this.OR2(this.consolidateWhen);
          this.OPTION2(() => this.SUBRULE(this.afterClause));
        },
      },
      { ALT: () => this.SUBRULE2(this.afterClause) },
    ],
    ERR_MSG: '`when`, `after` or `never`',
  };

  private readonly consolidateWhen: Alternatives = {
    DEF: [
      {
        ALT: () => {
          this.CONSUME(kw.empty!);
          this.OPTION(() => {
            this.CONSUME(kw.or!);
            this.CONSUME(kw.underutilized!);
          });
        },
      },
      { ALT: () => this.CONSUME(kw.balanced!) },
    ],
    ERR_MSG: '`empty` or `balanced`',
  };

  afterClause = this.RULE('afterClause', () => {
    this.CONSUME(kw.after!);
    this.OR(this.afterWhat);
  });

  private readonly afterWhat: Alternatives = {
    DEF: [{ ALT: () => this.CONSUME(Duration) }, { ALT: () => this.CONSUME(kw.never!) }],
    ERR_MSG: 'a duration or `never`',
  };

  expireStmt = this.RULE('expireStmt', () => {
    this.CONSUME(kw.expire!);
    this.OR(this.expireWhen);
  });

  private readonly expireWhen: Alternatives = {
    DEF: [
      { ALT: () => this.CONSUME(kw.never!) },
      {
        ALT: () => {
          this.SUBRULE(this.afterClause);
          this.OPTION(() => this.CONSUME(kw.gracefully!));
        },
      },
    ],
    ERR_MSG: '`after` or `never`',
  };

  terminationStmt = this.RULE('terminationStmt', () => {
    this.CONSUME(kw.termination!);
    this.CONSUME(kw.grace!);
    this.CONSUME(Duration);
  });

  timezoneStmt = this.RULE('timezoneStmt', () => {
    this.CONSUME(kw.timezone!);
    this.CONSUME(StringLit, { ERR_MSG: 'a quoted time zone' });
  });

  budgetStmt = this.RULE('budgetStmt', () => {
    this.CONSUME(kw.budget!);
    this.SUBRULE(this.quantity);
    // `per D`: a rate budget (`per reason` below is told apart by its second token)
    this.OPTION5(() => this.SUBRULE(this.ratePeriod));
    this.OPTION(() => {
      this.CONSUME(kw.for!);
      this.SUBRULE(this.reasons);
    });
    // `per reason`: each reason of the budget is its own bucket (rules/README.md §3.6)
    this.OPTION3(() => {
      this.CONSUME(kw.per!);
      // `per` also begins a rate budget's `per D`: a user may have meant either
      this.CONSUME(kw.reason!, { ERR_MSG: 'a duration or `reason`' });
    });
    // A selector budget: the budget counts only the matching nodes of the policy's pools.
    this.OPTION4(() => {
      this.CONSUME(kw.on!);
      this.CONSUME(kw.nodes!);
      this.CONSUME(kw.where!);
      this.SUBRULE(this.selector);
    });
    this.OPTION2(() => {
      this.CONSUME(kw.during!);
      this.SUBRULE(this.window);
    });
  });

  /** `per D`: makes a budget a rate budget over a sliding window of D (rules/README §3.6.1). */
  ratePeriod = this.RULE('ratePeriod', () => {
    this.CONSUME(kw.per!);
    this.CONSUME(Duration);
  });

  allowStmt = this.RULE('allowStmt', () => {
    this.CONSUME(kw.allow!);
    this.SUBRULE(this.quantity);
    this.OPTION(() => this.SUBRULE(this.reasons));
    this.CONSUME(kw.only!);
    this.CONSUME(kw.during!);
    this.SUBRULE(this.window);
  });

  freezeStmt = this.RULE('freezeStmt', () => {
    this.CONSUME(kw.freeze!);
    this.OPTION(() => this.SUBRULE(this.reasons));
    this.CONSUME(kw.from!);
    this.CONSUME(StringLit, { ERR_MSG: 'a quoted date-time' });
    this.CONSUME(kw.to!);
    this.CONSUME2(StringLit, { ERR_MSG: 'a quoted date-time' });
    this.OPTION2(() => this.SUBRULE(this.inZone));
  });

  podsStmt = this.RULE('podsStmt', () => {
    this.CONSUME(kw.pods!);
    this.OPTION(() => {
      this.CONSUME(kw.where!);
      this.SUBRULE(this.selector);
    });
    this.OPTION2(() => {
      this.CONSUME(kw.in!);
      this.CONSUME(kw.namespace!);
      this.SUBRULE(this.nameList);
    });
    this.OR2(this.podsForm);
  });

  /** `disruptable only|never during WINDOW`, or `never REASONS` (always, for the listed reasons only). */
  private readonly podsForm: Alternatives = {
    DEF: [
      {
        ALT: () => {
          this.CONSUME(kw.disruptable!);
          this.OR(this.podsMode);
          this.CONSUME(kw.during!);
          this.SUBRULE(this.window);
        },
      },
      {
        ALT: () => {
          this.CONSUME2(kw.never!);
          this.SUBRULE(this.reasons);
        },
      },
    ],
    ERR_MSG: '`disruptable` or `never`',
  };

  private readonly podsMode: Alternatives = {
    DEF: [{ ALT: () => this.CONSUME(kw.only!) }, { ALT: () => this.CONSUME(kw.never!) }],
    ERR_MSG: '`only` or `never`',
  };

  windowStmt = this.RULE('windowStmt', () => {
    this.CONSUME(kw.window!);
    this.CONSUME(Identifier, { ERR_MSG: 'a window name' });
    this.CONSUME(kw.blocks!);
    this.SUBRULE(this.reasons);
    this.OPTION(() => {
      this.CONSUME(kw.on!);
      this.CONSUME(kw.nodes!);
      this.CONSUME(kw.where!);
      this.SUBRULE(this.selector);
    });
    this.OPTION2(() => {
      this.CONSUME(kw.during!);
      this.SUBRULE(this.window);
      this.MANY(() => {
        this.CONSUME(Comma);
        this.SUBRULE2(this.window);
      });
    });
  });

  unknownStmt = this.RULE('unknownStmt', () => {
    this.AT_LEAST_ONE(() => this.CONSUME(StatementJunk));
  });

  topLevelJunk = this.RULE('topLevelJunk', () => {
    this.AT_LEAST_ONE(() => this.CONSUME(TopLevelJunk));
  });

  reasons = this.RULE('reasons', () => {
    this.CONSUME(Name, { ERR_MSG: 'a reason' });
    this.MANY(() => {
      this.CONSUME(Comma);
      this.CONSUME2(Name, { ERR_MSG: 'a reason' });
    });
  });

  quantity = this.RULE('quantity', () => {
    this.OR(this.quantityForm);
  });

  private readonly quantityForm: Alternatives = {
    DEF: [{ ALT: () => this.CONSUME(NumberLit) }, { ALT: () => this.CONSUME(Percent) }],
    ERR_MSG: QUANTITY,
  };

  window = this.RULE('window', () => {
    this.OR(this.scheduleForm);
    this.OPTION(() => this.SUBRULE(this.forDuration));
    this.OPTION2(() => this.SUBRULE(this.inZone));
  });

  private readonly scheduleForm: Alternatives = {
    DEF: [{ ALT: () => this.CONSUME(StringLit) }, { ALT: () => this.CONSUME(Name) }],
    ERR_MSG: SCHEDULE,
  };

  forDuration = this.RULE('forDuration', () => {
    this.CONSUME(kw.for!);
    this.CONSUME(Duration);
  });

  inZone = this.RULE('inZone', () => {
    this.CONSUME(kw.in!);
    this.CONSUME(StringLit, { ERR_MSG: 'a quoted time zone' });
  });

  selector = this.RULE('selector', () => {
    this.SUBRULE(this.requirement);
    this.MANY(() => {
      this.OR(this.requirementJoin);
      this.SUBRULE2(this.requirement);
    });
  });

  private readonly requirementJoin: Alternatives = [
    { ALT: () => this.CONSUME(kw.and!) },
    { ALT: () => this.CONSUME(Comma) },
  ];

  requirement = this.RULE('requirement', () => {
    this.OR(this.requirementForm);
  });

  private readonly requirementForm: Alternatives = {
    DEF: [
      {
        ALT: () => {
          this.CONSUME(Bang);
          this.CONSUME(Identifier, { ERR_MSG: 'a label key' });
        },
      },
      {
        ALT: () => {
          this.CONSUME2(Identifier);
          this.SUBRULE(this.requirementTail);
        },
      },
    ],
    ERR_MSG: 'a label key',
  };

  requirementTail = this.RULE('requirementTail', () => {
    this.OR(this.requirementTailForm);
  });

  private readonly requirementTailForm: Alternatives = {
    DEF: [
      {
        ALT: () => {
          this.OR2(this.equalityOperator);
          this.SUBRULE(this.value);
        },
      },
      {
        ALT: () => {
          this.OR3(this.setOperator);
          this.CONSUME(LParen);
          this.SUBRULE2(this.value);
          this.MANY(() => {
            this.CONSUME(Comma);
            this.SUBRULE3(this.value);
          });
          this.CONSUME(RParen);
        },
      },
      { ALT: () => this.CONSUME(kw.exists!) },
      {
        ALT: () => {
          this.CONSUME(kw.not!);
          this.CONSUME2(kw.exists!);
        },
      },
    ],
    ERR_MSG: '`=`, `!=`, `in`, `notin`, `exists` or `not exists`',
  };

  private readonly equalityOperator: Alternatives = [
    { ALT: () => this.CONSUME(Equals) },
    { ALT: () => this.CONSUME(DoubleEquals) },
    { ALT: () => this.CONSUME(NotEquals) },
  ];

  private readonly setOperator: Alternatives = [
    { ALT: () => this.CONSUME(kw.in!) },
    { ALT: () => this.CONSUME(kw.notin!) },
  ];

  value = this.RULE('value', () => {
    this.OR(this.valueForm);
  });

  private readonly valueForm: Alternatives = {
    DEF: [
      { ALT: () => this.CONSUME(StringLit) },
      { ALT: () => this.CONSUME(Identifier) },
      { ALT: () => this.CONSUME(NumberLit) },
      { ALT: () => this.CONSUME(Duration) },
    ],
    ERR_MSG: 'a label value',
  };
}

// The grammar is fixed, so the shared instance skips the checks; `checkGrammar` runs them in CI.
const parser = new KpolParser(false);

/** Builds a parser with Chevrotain's grammar validations on; throws on a grammar mistake. */
export function checkGrammar(): void {
  new KpolParser(true);
}

/**
 * TypeScript declarations of every rule's CST node (Chevrotain's generateCstDts), kept in
 * grammar/cst-types.ts; test/grammar/cst-types.test.ts fails when the two differ.
 */
export function cstDeclarations(): string {
  return generateCstDts(parser.getGAstProductions(), { includeVisitorInterface: false });
}

/** The CST of a whole file plus the recognition errors Chevrotain recovered from. */
export interface ParsedTokens {
  cst: FileCstNode;
  errors: IRecognitionException[];
}

const KEYWORD_OF = new Map<TokenType, string>(Object.entries(kw).map(([word, type]) => [type, word]));

/**
 * The keywords the grammar allows right after `preceding`, read as the start of a `rule`
 * (Chevrotain's content assist): after `budget 5` in a `statement`, `for` and `during`. Empty
 * when `preceding` is not such a start. For "did you mean" hints on input that failed to parse.
 */
export function keywordsAfter(rule: 'statement' | 'file', preceding: IToken[]): string[] {
  const words = tokensAfter(rule, preceding).map((type) => KEYWORD_OF.get(type));
  return [...new Set(words.filter((w): w is string => w !== undefined))];
}

/** Every token type the grammar allows right after `preceding` (see `keywordsAfter`). */
export function tokensAfter(rule: 'statement' | 'file', preceding: IToken[]): TokenType[] {
  return [...new Set(parser.computeContentAssist(rule, preceding).map((path) => path.nextTokenType))];
}

/**
 * Parses a token stream from `tokenize` into a CST. Never throws on user input. With
 * `policyParsed`, the policies completed before the first error go to it, in source order, and
 * are left out of the CST; the ones after stay in it.
 */
export function parseTokens(tokens: IToken[], policyParsed?: (node: PolicyCstNode) => void): ParsedTokens {
  // Chevrotain's recognition exceptions are Errors, and each captured a stack trace that nothing
  // reads: for a file of errors, half the parse's time and a third of its memory (issue 13).
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    parser.input = tokens;
    parser.policyParsed = policyParsed;
    const cst = parser.file() as FileCstNode; // the shape grammar/cst-types.ts declares for rule `file`
    return { cst, errors: parser.errors };
  } finally {
    parser.policyParsed = undefined;
    Error.stackTraceLimit = stackTraceLimit;
  }
}
