// SPDX-License-Identifier: Apache-2.0
// The state the checker's stages share. Stages run in the fixed order of rules/checks/check.ts; each
// reads what earlier stages lowered and adds its own part of every PolicySpec plus diagnostics.
import type { DurationLit, Policy, PolicyFile, Range, ScheduleDecl, WindowExpr } from '../../grammar/ast.js';
import type { Diagnostic } from '../../grammar/diagnostic.js';
import type { PolicySpec, WindowSpec } from '../model.js';

/** One file being checked: its diagnostics and its top-level `schedule` declarations. */
export interface FileScope {
  fileName: string;
  file: PolicyFile;
  diagnostics: Diagnostic[];
  schedules: Map<string, NamedSchedule>;
  usedSchedules: Set<string>;
  /**
   * One spec per distinct valid window of the file (lower-window.ts): policies repeat the same few
   * windows, and the analysis stages (window-shape.ts) then work each one out once. Specs are not
   * changed once lowered, so sharing one is safe.
   */
  windowSpecs?: Map<string, WindowSpec>;
}

/** A `schedule NAME = …` declaration: the normalised cron, or why it is invalid. */
export interface NamedSchedule {
  decl: ScheduleDecl;
  cron?: string;
  error?: string;
}

/** Where a window is used; it decides which durations are allowed. */
export type WindowUse = 'budget' | 'allow' | 'pod' | 'maintenance';

/** A window that lowered without errors, kept with its syntax for the analysis stages. */
export interface LoweredWindow {
  expr: WindowExpr;
  /** The duration literal in force: the window's own, or its named schedule's. */
  duration: DurationLit;
  spec: WindowSpec;
  use: WindowUse;
}

/** One policy being lowered. `spec` starts with Karpenter's defaults and is filled in by stages. */
export interface PolicyUnit {
  scope: FileScope;
  ast: Policy;
  spec: PolicySpec;
  /** The zone of windows without their own `in`: the policy's `timezone`, else UTC. */
  defaultZone: string;
  /** Some text inside the policy did not parse (its error is reported). */
  unparsed: boolean;
  /**
   * The policy did not lower as written: text inside it did not parse, or a reason list named
   * an unknown reason (the errors are reported). Checks that reason about the policy as a whole
   * — which reasons its budgets cover, which budget shadows which — are skipped: they would
   * report what follows from the error.
   */
  incomplete: boolean;
  windows: LoweredWindow[];
}

export interface CheckContext {
  scopes: FileScope[];
  units: PolicyUnit[];
  nowMs?: number;
}

/**
 * What a stage reads, which decides what may be re-checked alone (editor/src/incremental-check.ts):
 * - `file`: one file's top-level declarations, never a policy;
 * - `policy`: one policy and its file's schedule table, nothing of any other policy; it gives
 *   the same reports whether run over every policy or over one policy alone;
 * - `all`: every policy checked together. It decides from names and counts, never from
 *   positions, so only the ranges it reports depend on where policies lie in their files.
 */
export type StageReach = 'file' | 'policy' | 'all';

/** A named, ordered step of the checker. `why` states the reason for its position. */
export interface Stage {
  name: string;
  why: string;
  reach: StageReach;
  run: (ctx: CheckContext) => void;
}

/** Whether `inner` lies within `outer`. */
export function within(inner: Range, outer: Range): boolean {
  return inner.start.offset >= outer.start.offset && inner.end.offset <= outer.end.offset;
}

/**
 * Whether `name` is written in text of the file that did not parse, outside every policy: a
 * schedule declaration that failed, whose uses are then not "unknown".
 */
export function inUnparsedDeclaration(scope: FileScope, name: string): boolean {
  return (scope.file.unparsed ?? []).some(
    (u) => u.words.includes(name) && !scope.file.policies.some((p) => within(u.range, p.range)),
  );
}

export function report(unitOrScope: PolicyUnit | FileScope, d: Diagnostic): void {
  const scope = 'scope' in unitOrScope ? unitOrScope.scope : unitOrScope;
  scope.diagnostics.push(d);
}
