// SPDX-License-Identifier: Apache-2.0
// The typed AST of a .kpol file. Every node carries its source range (0-based line and
// character, plus the absolute offset) so the checker can point at exactly what is wrong.
// The AST is syntax only: names are not resolved and values are not validated here.

export interface Position {
  line: number; // 0-based
  character: number; // 0-based, UTF-16 code units
  offset: number; // 0-based absolute offset into the text
}

export interface Range {
  start: Position;
  end: Position; // exclusive
}

interface Node {
  range: Range;
}

/** An identifier-like word as written, e.g. a policy name, a reason or a label key. */
export interface Name extends Node {
  kind: 'Name';
  text: string;
}

/** A quoted string with its unescaped value. */
export interface Str extends Node {
  kind: 'Str';
  value: string;
}

/** A duration literal as written (`1h30m`, `720h`, `90s`); parsed and checked in rules/. */
export interface DurationLit extends Node {
  kind: 'Duration';
  text: string;
}

/** `never` where a duration may be given. */
export interface NeverLit extends Node {
  kind: 'Never';
}

/** A node count (`5`) or a percent (`20%`); `text` is what was written. */
export interface QuantityLit extends Node {
  kind: 'Quantity';
  text: string;
  value: number;
  percent: boolean;
}

/**
 * A label selector requirement: `key = "v"`, `key != "v"`, `key in (a, b)`, `key notin (a)`, `key exists`, `key not
 * exists`.
 */
export interface Requirement extends Node {
  kind: 'Requirement';
  key: Name;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values: Str[]; // unquoted words are lowered to Str too
}

/** Requirements joined by `and` (or commas); all must match. */
export interface Selector extends Node {
  kind: 'Selector';
  requirements: Requirement[];
}

/**
 * When something is active: a cron schedule (quoted string, or the name of a `schedule`
 * declared at top level) with a duration, in an optional IANA time zone.
 */
export interface WindowExpr extends Node {
  kind: 'Window';
  schedule: Str | Name; // Name refers to a top-level `schedule NAME = ...` declaration
  duration?: DurationLit; // absent only when `schedule` is a Name whose declaration carries one
  timeZone?: Str;
}

/** An absolute date-time range `from "2026-12-20 00:00" to "2027-01-02 00:00" [in "Europe/Berlin"]`. */
export interface DateRange extends Node {
  kind: 'DateRange';
  from: Str;
  to: Str;
  timeZone?: Str;
}

/** `schedule NAME = "cron" [for DURATION] [in "TZ"]` at top level: a reusable window (a macro). */
export interface ScheduleDecl extends Node {
  kind: 'ScheduleDecl';
  name: Name;
  cron: Str;
  duration?: DurationLit;
  timeZone?: Str;
}

/** Which NodePools a policy governs. */
export type Target =
  ({ kind: 'NodePoolNames'; names: Name[] } & Node) | ({ kind: 'NodePoolSelector'; selector: Selector } & Node);

/** `consolidate when empty | when empty or underutilized | when balanced [after D|never]` or `consolidate never`. */
export interface ConsolidateStmt extends Node {
  kind: 'Consolidate';
  policy?: Name; // lowered to the Karpenter enum text: WhenEmpty | WhenEmptyOrUnderutilized | Balanced
  after?: DurationLit | NeverLit;
}

/** `expire after D|never [gracefully]` */
export interface ExpireStmt extends Node {
  kind: 'Expire';
  after: DurationLit | NeverLit;
  graceful: boolean;
}

/** `termination grace D` */
export interface TerminationGraceStmt extends Node {
  kind: 'TerminationGrace';
  duration: DurationLit;
}

/** `timezone "Europe/Berlin"`: the default zone for every window of the policy. */
export interface TimeZoneStmt extends Node {
  kind: 'TimeZone';
  zone: Str;
}

/**
 * `budget N|N% [per D] [for REASONS] [during WINDOW]` — a Karpenter budget (deny-style when windowed);
 * with `per D` a kpol rate budget: at most N disruptions started in any sliding window of D.
 */
export interface BudgetStmt extends Node {
  kind: 'Budget';
  nodes: QuantityLit;
  per?: DurationLit;
  reasons: Name[]; // empty = all reasons
  /** `on nodes where SELECTOR` (kpol): the budget counts only the matching nodes of the policy's pools. */
  selector?: Selector;
  /** `per reason`: each reason counts only the nodes disrupted for it (an independent bucket). */
  perReason?: { kind: 'PerReason'; range: Range };
  window?: WindowExpr;
}

/**
 * `cluster budget N|N% [for REASONS] [during WINDOW] [on nodepools A, B]` at top level (kpol): one
 * budget over the nodes of several NodePools, each of which a policy of the same file must govern.
 */
export interface ClusterBudgetDecl extends Node {
  kind: 'ClusterBudget';
  nodes: QuantityLit;
  reasons: Name[]; // empty = all reasons
  window?: WindowExpr;
  nodePools: Name[]; // empty = every NodePool the file's policies govern
}

/** `allow N|N% REASONS only during WINDOW` — N inside the window, none outside. */
export interface AllowStmt extends Node {
  kind: 'Allow';
  nodes: QuantityLit;
  reasons: Name[]; // empty = all reasons (written `allow 3 only during ...`)
  window: WindowExpr;
}

/** `freeze [REASONS] from "…" to "…" [in "TZ"]` — a one-off block. Empty reasons = all. */
export interface FreezeStmt extends Node {
  kind: 'Freeze';
  name?: Name;
  reasons: Name[];
  when: DateRange;
}

/**
 * `pods where SELECTOR [in namespace a, b] disruptable only during WINDOW`
 * `pods where SELECTOR [in namespace a, b] disruptable never during WINDOW`
 * `pods where SELECTOR [in namespace a, b] never REASONS` (no window: always, for those reasons only)
 */
export interface PodWindowStmt extends Node {
  kind: 'PodWindow';
  selector?: Selector; // absent: `pods in namespace x ...` or `all pods`
  namespaces: Name[];
  mode: 'only' | 'never';
  /** Absent in the `never REASONS` form. */
  window?: WindowExpr;
  /** Present only in the `never REASONS` form: the reasons the pods protect their node from. */
  reasons?: Name[];
}

/**
 * `window NAME blocks REASONS [on nodes where SELECTOR] during WINDOW [, WINDOW…]`
 * (KARPENTER.md#maintenance-windows-proposal, AND semantics).
 */
export interface MaintenanceWindowStmt extends Node {
  kind: 'MaintenanceWindow';
  name: Name;
  reasons: Name[];
  selector?: Selector;
  windows: WindowExpr[]; // empty = always
}

export type Statement =
  | ConsolidateStmt
  | ExpireStmt
  | TerminationGraceStmt
  | TimeZoneStmt
  | BudgetStmt
  | AllowStmt
  | FreezeStmt
  | PodWindowStmt
  | MaintenanceWindowStmt;

export interface Policy extends Node {
  kind: 'Policy';
  name: Name;
  target: Target;
  statements: Statement[];
}

export interface Comment extends Node {
  kind: 'Comment';
  text: string; // including the leading `#` or `//`
}

/**
 * Source text that did not parse into the AST (a statement, declaration or policy recovery cut
 * short, or words no statement starts with); its error is already reported. Kept so that the
 * checker reports nothing that follows only from its absence: `words` are the names written in
 * it, such as a schedule a broken statement used.
 */
export interface Unparsed extends Node {
  kind: 'Unparsed';
  words: string[];
}

export interface PolicyFile extends Node {
  kind: 'File';
  schedules: ScheduleDecl[];
  policies: Policy[];
  /** Top-level `cluster budget` declarations; present only when the file has some. */
  clusterBudgets?: ClusterBudgetDecl[];
  comments: Comment[]; // kept for the formatter
  unparsed?: Unparsed[]; // present only when some text did not parse
}
