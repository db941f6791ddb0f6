// SPDX-License-Identifier: Apache-2.0
// The fast path of `parse` for a file that is written out in full: one pass over the tokens that
// builds the AST directly, with no CST and no recovery. It accepts only what the grammar of
// parser.ts accepts without any error and lowers to what lower.ts gives for it; at the first
// token it does not expect, or anything lowering would report, it gives up and `parse` takes the
// Chevrotain path, which owns every error, recovery and hint. So this file never decides what a
// mistake means: a form it does not know is only slower. Each function names the rule of
// parser.ts it follows; the AST's key order is the one lower*.ts builds (goldens print it).
// test/grammar/fast-parse.test.ts holds the two paths equal on goldens, generated and mutated text.
import type { TokenType } from 'chevrotain';
import type {
  AllowStmt,
  BudgetStmt,
  ClusterBudgetDecl,
  Comment,
  ConsolidateStmt,
  DateRange,
  DurationLit,
  ExpireStmt,
  FreezeStmt,
  MaintenanceWindowStmt,
  Name,
  NeverLit,
  Policy,
  PodWindowStmt,
  PolicyFile,
  QuantityLit,
  Range,
  Requirement,
  ScheduleDecl,
  Selector,
  Statement,
  Str,
  Target,
  WindowExpr,
} from './ast.js';
import type { Lexed } from './fast-lex.js';
import { percentDigits, unquote } from './lexer.js';
import type { LineIndex } from './positions.js';
import {
  Bang,
  Comma,
  DoubleEquals,
  Duration,
  Equals,
  Identifier,
  kw,
  LCurly,
  LParen,
  Name as NameToken,
  NotEquals,
  NumberLit,
  Percent,
  RCurly,
  RParen,
  StringLit,
} from './tokens.js';

/** Thrown to leave the fast path; `fastParse` turns it into undefined. */
class NotPlain {}
const NOT_PLAIN = new NotPlain();

const K = kw as Readonly<Record<string, TokenType>>;
const CONSOLIDATION_POLICY: Readonly<Record<string, string>> = {
  empty: 'WhenEmpty',
  underutilized: 'WhenEmptyOrUnderutilized',
  balanced: 'Balanced',
};

/**
 * The AST of a file with no syntax error and nothing for lowering to report, as `parse` would
 * give it; undefined for any other file. `tokens` come from fast-lex.ts, which found nothing to
 * report, and `comments` are its comments as the AST holds them.
 */
export function fastParse(tokens: Lexed, comments: Comment[], lines: LineIndex): PolicyFile | undefined {
  try {
    return new Reader(tokens, lines).file(comments);
  } catch (e) {
    if (e === NOT_PLAIN) return undefined;
    throw e;
  }
}

/** Chevrotain's `tokenMatcher` for a token of type `t`: `type` itself or a category `t` belongs to. */
function isA(t: TokenType, type: TokenType): boolean {
  return t === type || (type.isParent === true && type.categoryMatchesMap![t.tokenTypeIdx!] === true);
}

/** A token is its index in the lexed arrays. */
type Tok = number;

class Reader {
  private i = 0;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly count: number;

  constructor(
    private readonly tokens: Lexed,
    private readonly lines: LineIndex,
  ) {
    this.starts = tokens.starts;
    this.ends = tokens.ends;
    this.count = tokens.count;
  }

  // ---- token access -------------------------------------------------------------------------

  /** The next token, which must exist (a file ends only between declarations). */
  private next(): Tok {
    if (this.i >= this.count) throw NOT_PLAIN;
    return this.i;
  }

  private at(type: TokenType, ahead = 0): boolean {
    const t = this.i + ahead;
    return t < this.count && isA(this.tokens.type(t), type);
  }

  private take(type: TokenType): Tok {
    if (!this.at(type)) throw NOT_PLAIN;
    return this.i++;
  }

  /** Where token `t` ends (exclusive). */
  private end(t: Tok): number {
    return this.ends[t]!;
  }

  private image(t: Tok): string {
    return this.tokens.image(t);
  }

  private tokenRange(t: Tok): Range {
    return this.lines.range(this.starts[t]!, this.end(t));
  }

  /** The range from `first`'s start to the end of the last token taken (a CST node's span). */
  private span(first: Tok): Range {
    return this.lines.range(this.starts[first]!, this.end(this.i - 1));
  }

  private name(t: Tok): Name {
    return { kind: 'Name', text: this.image(t), range: this.tokenRange(t) };
  }

  private str(t: Tok): Str {
    // fast-lex.ts takes only closed strings: the value is what lies between the quotes, unescaped.
    const body = this.tokens.text.substring(this.starts[t]! + 1, this.ends[t]! - 1);
    const value = body.includes('\\') ? unquote(this.image(t)) : body;
    return { kind: 'Str', value, range: this.tokenRange(t) };
  }

  private duration(t: Tok): DurationLit {
    return { kind: 'Duration', text: this.image(t), range: this.tokenRange(t) };
  }

  private never(t: Tok): NeverLit {
    return { kind: 'Never', range: this.tokenRange(t) };
  }

  // ---- top level (`file`) -------------------------------------------------------------------

  file(comments: Comment[]): PolicyFile {
    const schedules: ScheduleDecl[] = [];
    const policies: Policy[] = [];
    const clusterBudgets: ClusterBudgetDecl[] = [];
    while (this.i < this.count) {
      if (this.at(K.schedule!)) schedules.push(this.scheduleDecl());
      else if (this.at(K.policy!)) policies.push(this.policy());
      else if (this.at(K.cluster!)) clusterBudgets.push(this.clusterBudget());
      else throw NOT_PLAIN;
    }
    const file: PolicyFile = {
      kind: 'File',
      schedules,
      policies,
      comments,
      range: this.lines.range(0, this.lines.text.length),
    };
    if (clusterBudgets.length > 0) file.clusterBudgets = clusterBudgets;
    return file;
  }

  private scheduleDecl(): ScheduleDecl {
    const first = this.take(K.schedule!);
    const name = this.name(this.take(NameToken));
    this.take(Equals);
    const cron = this.str(this.take(StringLit));
    const duration = this.forDuration();
    const zone = this.inZone();
    const decl: ScheduleDecl = { kind: 'ScheduleDecl', name, cron, range: this.span(first) };
    if (duration) decl.duration = duration;
    if (zone) decl.timeZone = zone;
    return decl;
  }

  private clusterBudget(): ClusterBudgetDecl {
    const first = this.take(K.cluster!);
    this.take(K.budget!);
    const nodes = this.quantity();
    let reasons: Name[] = [];
    if (this.at(K.for!)) {
      this.i++;
      reasons = this.reasons();
    }
    let window: WindowExpr | undefined;
    if (this.at(K.during!)) {
      this.i++;
      window = this.window();
    }
    let nodePools: Name[] = [];
    if (this.at(K.on!)) {
      this.i++;
      this.nodepoolKeyword();
      nodePools = this.nameList();
    }
    const decl: ClusterBudgetDecl = { kind: 'ClusterBudget', nodes, reasons, nodePools, range: this.span(first) };
    if (window) decl.window = window;
    return decl;
  }

  private policy(): Policy {
    const first = this.take(K.policy!);
    const name = this.name(this.take(Identifier));
    this.take(K.for!);
    const target = this.target();
    this.take(LCurly);
    const statements: Statement[] = [];
    while (!this.at(RCurly)) statements.push(this.statement());
    this.i++;
    return { kind: 'Policy', name, target, statements, range: this.span(first) };
  }

  private target(): Target {
    const first = this.next();
    this.nodepoolKeyword();
    if (this.at(K.where!)) {
      this.i++;
      const selector = this.selector();
      return { kind: 'NodePoolSelector', selector, range: this.span(first) };
    }
    const names = this.nameList();
    return { kind: 'NodePoolNames', names, range: this.span(first) };
  }

  private nodepoolKeyword(): void {
    if (!this.at(K.nodepool!) && !this.at(K.nodepools!)) throw NOT_PLAIN;
    this.i++;
  }

  /** `a, b, c`: names of one token type separated by commas. */
  private names(type: TokenType): Name[] {
    const names = [this.name(this.take(type))];
    while (this.at(Comma)) {
      this.i++;
      names.push(this.name(this.take(type)));
    }
    return names;
  }

  private nameList(): Name[] {
    return this.names(Identifier);
  }

  // ---- statements ---------------------------------------------------------------------------

  private statement(): Statement {
    const t = this.next();
    switch (this.tokens.type(t)) {
      case K.consolidate:
        return this.consolidate();
      case K.expire:
        return this.expire();
      case K.termination:
        return this.termination();
      case K.timezone: {
        this.i++;
        const zone = this.str(this.take(StringLit));
        return { kind: 'TimeZone', zone, range: this.span(t) };
      }
      case K.budget:
        return this.budget();
      case K.allow:
        return this.allow();
      case K.freeze:
        return this.freeze();
      case K.pods:
        return this.pods();
      case K.window:
        return this.maintenanceWindow();
      default:
        throw NOT_PLAIN; // an unknown statement: the Chevrotain path reports it
    }
  }

  private consolidate(): ConsolidateStmt {
    const first = this.take(K.consolidate!);
    if (this.at(K.never!)) {
      const never = this.never(this.take(K.never!));
      return { kind: 'Consolidate', range: this.span(first), after: never };
    }
    let policy: Name | undefined;
    if (this.at(K.when!)) {
      this.i++;
      const from = this.next();
      if (this.at(K.empty!)) {
        this.i++;
        if (this.at(K.or!)) {
          this.i++;
          this.take(K.underutilized!);
        }
      } else this.take(K.balanced!);
      const to = this.i - 1;
      const text = CONSOLIDATION_POLICY[this.image(to)]!;
      policy = { kind: 'Name', text, range: this.lines.range(this.starts[from]!, this.end(to)) };
      if (this.at(K.after!)) return this.consolidateAfter(first, policy);
      return { kind: 'Consolidate', range: this.span(first), policy };
    }
    return this.consolidateAfter(first, undefined);
  }

  private consolidateAfter(first: Tok, policy: Name | undefined): ConsolidateStmt {
    const after = this.afterClause();
    const stmt: ConsolidateStmt = { kind: 'Consolidate', range: this.span(first) };
    if (policy) stmt.policy = policy;
    stmt.after = after;
    return stmt;
  }

  private afterClause(): DurationLit | NeverLit {
    this.take(K.after!);
    if (this.at(Duration)) return this.duration(this.take(Duration));
    return this.never(this.take(K.never!));
  }

  private expire(): ExpireStmt {
    const first = this.take(K.expire!);
    if (this.at(K.never!)) {
      const after = this.never(this.take(K.never!));
      return { kind: 'Expire', after, graceful: false, range: this.span(first) };
    }
    const after = this.afterClause();
    const graceful = this.at(K.gracefully!);
    if (graceful) this.i++;
    return { kind: 'Expire', after, graceful, range: this.span(first) };
  }

  private termination(): Statement {
    const first = this.take(K.termination!);
    this.take(K.grace!);
    const duration = this.duration(this.take(Duration));
    return { kind: 'TerminationGrace', duration, range: this.span(first) };
  }

  private budget(): BudgetStmt {
    const first = this.take(K.budget!);
    const nodes = this.quantity();
    let per: DurationLit | undefined;
    if (this.at(K.per!) && this.at(Duration, 1)) {
      this.i++;
      per = this.duration(this.take(Duration));
    }
    let reasons: Name[] = [];
    if (this.at(K.for!)) {
      this.i++;
      reasons = this.reasons();
    }
    let perReason: Range | undefined;
    if (this.at(K.per!)) {
      const perToken = this.take(K.per!);
      this.take(K.reason!);
      perReason = this.span(perToken);
    }
    let selector: Selector | undefined;
    if (this.at(K.on!)) {
      this.i++;
      this.take(K.nodes!);
      this.take(K.where!);
      selector = this.selector();
    }
    let window: WindowExpr | undefined;
    if (this.at(K.during!)) {
      this.i++;
      window = this.window();
    }
    const stmt: BudgetStmt = { kind: 'Budget', nodes, reasons, range: this.span(first) };
    if (per) stmt.per = per;
    if (perReason) stmt.perReason = { kind: 'PerReason', range: perReason };
    if (selector) stmt.selector = selector;
    if (window) stmt.window = window;
    return stmt;
  }

  private allow(): AllowStmt {
    const first = this.take(K.allow!);
    const nodes = this.quantity();
    const reasons = this.at(NameToken) ? this.reasons() : [];
    this.take(K.only!);
    this.take(K.during!);
    const window = this.window();
    return { kind: 'Allow', nodes, reasons, window, range: this.span(first) };
  }

  private freeze(): FreezeStmt {
    const first = this.take(K.freeze!);
    const reasons = this.at(NameToken) ? this.reasons() : [];
    const fromKeyword = this.take(K.from!);
    const from = this.str(this.take(StringLit));
    this.take(K.to!);
    const to = this.str(this.take(StringLit));
    const zone = this.inZone();
    const end = zone?.range.end.offset ?? to.range.end.offset;
    const when: DateRange = { kind: 'DateRange', from, to, range: this.lines.range(this.starts[fromKeyword]!, end) };
    if (zone) when.timeZone = zone;
    return { kind: 'Freeze', reasons, when, range: this.span(first) };
  }

  private pods(): PodWindowStmt {
    const first = this.take(K.pods!);
    let selector: Selector | undefined;
    if (this.at(K.where!)) {
      this.i++;
      selector = this.selector();
    }
    let namespaces: Name[] = [];
    if (this.at(K.in!)) {
      this.i++;
      this.take(K.namespace!);
      namespaces = this.nameList();
    }
    let stmt: PodWindowStmt;
    if (this.at(K.disruptable!)) {
      this.i++;
      const mode = this.at(K.never!) ? 'never' : 'only';
      this.take(mode === 'never' ? K.never! : K.only!);
      this.take(K.during!);
      const window = this.window();
      stmt = { kind: 'PodWindow', namespaces, mode, range: this.span(first) };
      stmt.window = window;
    } else {
      this.take(K.never!);
      const reasons = this.reasons();
      stmt = { kind: 'PodWindow', namespaces, mode: 'never', range: this.span(first) };
      stmt.reasons = reasons;
    }
    if (selector) stmt.selector = selector;
    return stmt;
  }

  private maintenanceWindow(): MaintenanceWindowStmt {
    const first = this.take(K.window!);
    const name = this.name(this.take(Identifier));
    this.take(K.blocks!);
    const reasons = this.reasons();
    let selector: Selector | undefined;
    if (this.at(K.on!)) {
      this.i++;
      this.take(K.nodes!);
      this.take(K.where!);
      selector = this.selector();
    }
    const windows: WindowExpr[] = [];
    if (this.at(K.during!)) {
      this.i++;
      windows.push(this.window());
      while (this.at(Comma)) {
        this.i++;
        windows.push(this.window());
      }
    }
    const stmt: MaintenanceWindowStmt = { kind: 'MaintenanceWindow', name, reasons, windows, range: this.span(first) };
    if (selector) stmt.selector = selector;
    return stmt;
  }

  // ---- parts --------------------------------------------------------------------------------

  private reasons(): Name[] {
    return this.names(NameToken);
  }

  /** `5` or `20%`; anything lower-parts.ts `quantityOf` would report leaves the fast path. */
  private quantity(): QuantityLit {
    const token = this.at(NumberLit) ? this.take(NumberLit) : this.take(Percent);
    const image = this.image(token);
    const percent = image.includes('%');
    const digits = percentDigits(image);
    const value = Number(digits);
    if (!/^\d+$/.test(digits) || !Number.isSafeInteger(value)) throw NOT_PLAIN;
    const text = percent ? `${digits}%` : digits;
    return { kind: 'Quantity', text, value, percent, range: this.tokenRange(token) };
  }

  private window(): WindowExpr {
    const first = this.next();
    const schedule = this.at(StringLit) ? this.str(this.take(StringLit)) : this.name(this.take(NameToken));
    const duration = this.forDuration();
    const zone = this.inZone();
    const window: WindowExpr = { kind: 'Window', schedule, range: this.span(first) };
    if (duration) window.duration = duration;
    if (zone) window.timeZone = zone;
    return window;
  }

  private forDuration(): DurationLit | undefined {
    if (!this.at(K.for!)) return undefined;
    this.i++;
    return this.duration(this.take(Duration));
  }

  private inZone(): Str | undefined {
    if (!this.at(K.in!)) return undefined;
    this.i++;
    return this.str(this.take(StringLit));
  }

  private selector(): Selector {
    const first = this.next();
    const requirements = [this.requirement()];
    while (this.at(K.and!) || this.at(Comma)) {
      this.i++;
      requirements.push(this.requirement());
    }
    return { kind: 'Selector', requirements, range: this.span(first) };
  }

  private requirement(): Requirement {
    const first = this.next();
    if (this.at(Bang)) {
      this.i++;
      const key = this.name(this.take(Identifier));
      return { kind: 'Requirement', key, operator: 'DoesNotExist', values: [], range: this.span(first) };
    }
    const key = this.name(this.take(Identifier));
    if (this.at(Equals) || this.at(DoubleEquals) || this.at(NotEquals)) {
      const negated = this.at(NotEquals);
      this.i++;
      const values = [this.value()];
      return { kind: 'Requirement', key, operator: negated ? 'NotIn' : 'In', values, range: this.span(first) };
    }
    if (this.at(K.in!) || this.at(K.notin!)) {
      const negated = this.at(K.notin!);
      this.i++;
      this.take(LParen);
      const values = [this.value()];
      while (this.at(Comma)) {
        this.i++;
        values.push(this.value());
      }
      this.take(RParen);
      return { kind: 'Requirement', key, operator: negated ? 'NotIn' : 'In', values, range: this.span(first) };
    }
    if (this.at(K.exists!)) {
      this.i++;
      return { kind: 'Requirement', key, operator: 'Exists', values: [], range: this.span(first) };
    }
    this.take(K.not!);
    this.take(K.exists!);
    return { kind: 'Requirement', key, operator: 'DoesNotExist', values: [], range: this.span(first) };
  }

  private value(): Str {
    if (this.at(StringLit)) return this.str(this.take(StringLit));
    const t = this.next();
    const type = this.tokens.type(t);
    if (!(isA(type, Identifier) || isA(type, NumberLit) || isA(type, Duration))) throw NOT_PLAIN;
    this.i++;
    return { kind: 'Str', value: this.image(t), range: this.tokenRange(t) };
  }
}
