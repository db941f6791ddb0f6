// SPDX-License-Identifier: Apache-2.0
// The check phase: a parsed .kpol AST → checked PolicySpecs plus diagnostics. Like OPA's
// compiler, it is an ordered table of named stages; each stage's position is justified
// beside it. Stages never stop the table: every stage lowers what it can and reports the
// rest, so one run reports every problem and the value is always complete.
import type { PolicyFile, Policy } from '../../grammar/ast.js';
import { sortDiagnostics, type Diagnostic, type Result } from '../../grammar/diagnostic.js';
import { parse } from '../../grammar/parse.js';
import { checkAlwaysActive } from './always-active.js';
import { checkBudgetShadowed } from './budget-shadowed.js';
import { checkBuckets } from './bucket-analysis.js';
import { lowerBudgets } from './budget-statements.js';
import { within, type CheckContext, type FileScope, type PolicyUnit, type Stage } from './context.js';
import { lowerFreezes } from './freezes.js';
import { lowerMaintenanceWindows } from './maintenance-windows.js';
import { lowerPodWindows } from './pod-window-statements.js';
import { lowerClusterBudgets, lowerSelectorBudgets } from './scoped-budgets.js';
import { checkRateBudgets } from './rate-budgets.js';
import { checkReasonUnlimited } from './reason-unlimited.js';
import { resolveSchedules } from './resolve-schedules.js';
import { checkScheduleNeverFires } from './schedule-never-fires.js';
import { checkSelectors, lowerSelector } from './selectors.js';
import { lowerSettings } from './settings.js';
import { checkUniqueness } from './uniqueness.js';
import { checkUnusedSchedules } from './unused-schedules.js';
import { checkWindowNeverOpens } from './window-never-opens.js';
import { basePolicy, type NodePoolTarget, type PolicySpec } from '../model.js';

export const STAGES: readonly Stage[] = [
  {
    name: 'resolveSchedules',
    reach: 'file',
    run: resolveSchedules,
    why:
      'windows anywhere may name a top-level schedule; each declaration is validated once, so a ' +
      'bad cron is reported where it is declared and not at every use',
  },
  {
    name: 'settings',
    reach: 'policy',
    run: lowerSettings,
    why:
      'before anything with reasons or windows: graceful expiration decides whether `Expired` is ' +
      'a reason, and `timezone` is the default zone of every later window',
  },
  {
    name: 'selectors',
    reach: 'policy',
    run: checkSelectors,
    why:
      'depends on nothing; label rules are checked once for the target, pod and node selectors, ' +
      'so the lowering stages after it stay pure',
  },
  {
    name: 'budgets',
    reach: 'policy',
    run: lowerBudgets,
    why: 'after settings (reasons, default zone); before the analysis stages, which reason about the lowered budgets',
  },
  {
    name: 'selectorBudgets',
    reach: 'policy',
    run: lowerSelectorBudgets,
    why:
      'after settings and selectors (reasons, default zone, label rules); the `budgets` stage leaves ' +
      '`budget … on nodes where` to it, since such a budget is not the pool-wide one Karpenter knows',
  },
  {
    name: 'clusterBudgets',
    reach: 'all',
    run: lowerClusterBudgets,
    why:
      "after every policy's target is lowered: a cluster budget is owned by its file and may only name the " +
      "NodePools that file's policies govern",
  },
  {
    name: 'freezes',
    reach: 'policy',
    run: lowerFreezes,
    why: 'after settings: wall times are read in the policy zone',
  },
  {
    name: 'podWindows',
    reach: 'policy',
    run: lowerPodWindows,
    why: 'after settings and resolveSchedules, like every window',
  },
  {
    name: 'maintenanceWindows',
    reach: 'policy',
    run: lowerMaintenanceWindows,
    why: 'after settings (graceful `Expired`, default zone) and resolveSchedules',
  },
  {
    name: 'uniqueness',
    reach: 'all',
    run: checkUniqueness,
    why:
      'needs every policy of every file checked together (NodePool overlap spans files); reads ' +
      'only names, so lowering errors do not hide it',
  },
  {
    name: 'unusedSchedules',
    reach: 'all',
    run: checkUnusedSchedules,
    why: 'only after every window stage has recorded which schedules it used',
  },
  {
    name: 'windowNeverOpens',
    reach: 'policy',
    run: checkWindowNeverOpens,
    why: 'analysis runs last and only on windows that lowered without errors, so a warning never repeats an error',
  },
  {
    name: 'scheduleNeverFires',
    reach: 'policy',
    run: checkScheduleNeverFires,
    why:
      'analysis; independent of the other window warnings (a never-firing schedule is always ' +
      'active, so it is not also reported as never opening)',
  },
  {
    name: 'alwaysActive',
    reach: 'policy',
    run: checkAlwaysActive,
    why: 'analysis; before budgetShadowed, whose notion of an always-active budget it explains',
  },
  {
    name: 'budgetShadowed',
    reach: 'policy',
    run: checkBudgetShadowed,
    why:
      'analysis over whole budget lists, after every window is known to be valid or carries an ' +
      'error; skipped for a policy that did not lower as written (text that did not parse, an ' +
      'unknown reason), whose budget list is not the one meant',
  },
  {
    name: 'buckets',
    reach: 'policy',
    run: checkBuckets,
    why:
      'analysis beside budgetShadowed, on the same lowered budget lists: a `per reason` bucket that a shared ' +
      'budget always beats, a bucket of 0, and pod protection a termination grace period lifts',
  },
  {
    name: 'rateBudgets',
    reach: 'policy',
    run: checkRateBudgets,
    why: 'analysis of the lowered rate budgets; their windows were bounded (errors) while the budgets lowered',
  },
  {
    name: 'reasonUnlimited',
    reach: 'policy',
    run: checkReasonUnlimited,
    why:
      'analysis; last because it concerns the policy as a whole and is reported at its name; ' +
      'skipped, like budgetShadowed, for a policy that did not lower as written',
  },
];

export interface CheckInput {
  /** Recorded in each PolicySpec and named in cross-file notes; optional for a lone text. */
  fileName?: string;
  file: PolicyFile;
}

export interface CheckOptions {
  /** The current instant, only for the informational "freeze in the past"; rules/ never reads a clock. */
  nowMs?: number;
}

/** PolicySpecs of all files, and each file's diagnostics (sorted) in input order. */
export interface CheckAllResult {
  value: PolicySpec[];
  files: Array<{ fileName: string; diagnostics: Diagnostic[] }>; // fileName `<input>` when none was given
}

/** Checks files together, so that names and NodePools must be unique across all of them. */
export function checkAll(inputs: readonly CheckInput[], options: CheckOptions = {}): CheckAllResult {
  const scopes = inputs.map(({ fileName, file }) => newScope(fileName, file));
  const units = scopes.flatMap((scope, i) => scope.file.policies.map((ast) => newUnit(scope, ast, inputs[i].fileName)));
  const ctx: CheckContext = { scopes, units, nowMs: options.nowMs };
  for (const stage of STAGES) stage.run(ctx);
  return {
    value: units.map((u) => u.spec),
    files: scopes.map((s) => ({ fileName: s.fileName, diagnostics: settleDiagnostics(s.diagnostics) })),
  };
}

export function check(file: PolicyFile, options: CheckOptions & { fileName?: string } = {}): Result<PolicySpec[]> {
  const result = checkAll([{ fileName: options.fileName, file }], options);
  return { value: result.value, diagnostics: result.files[0].diagnostics };
}

/** Parses then checks one text; the diagnostics of both phases, sorted. */
export function checkSource(text: string, fileName?: string, options: CheckOptions = {}): Result<PolicySpec[]> {
  const parsed = parse(text);
  const checked = check(parsed.value, { ...options, fileName });
  return { value: checked.value, diagnostics: sortDiagnostics([...parsed.diagnostics, ...checked.diagnostics]) };
}

const UNNAMED = '<input>';

/** A file about to be checked: nothing reported or resolved yet. */
export function newScope(fileName: string | undefined, file: PolicyFile): FileScope {
  return { fileName: fileName ?? UNNAMED, file, diagnostics: [], schedules: new Map(), usedSchedules: new Set() };
}

/** A policy about to be checked, with Karpenter's defaults until the stages fill it in. */
export function newUnit(scope: FileScope, ast: Policy, fileName: string | undefined): PolicyUnit {
  const spec = basePolicy(ast.name.text, 'kpol', lowerTarget(ast));
  if (fileName !== undefined) spec.file = fileName;
  const unparsed = (scope.file.unparsed ?? []).some((u) => within(u.range, ast.range));
  return { scope, ast, spec, defaultZone: 'UTC', windows: [], unparsed, incomplete: unparsed };
}

function lowerTarget(ast: Policy): NodePoolTarget {
  const t = ast.target;
  return t.kind === 'NodePoolNames'
    ? { kind: 'names', names: t.names.map((n) => n.text) }
    : { kind: 'selector', selector: lowerSelector(t.selector) };
}

/** A file's reports as checkAll returns them: identical ones collapsed, then sorted. */
export function settleDiagnostics(reported: Diagnostic[]): Diagnostic[] {
  return sortDiagnostics(dedupe(reported));
}

// A named schedule's duration is checked at each use; identical reports collapse to one.
function dedupe(diagnostics: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.code}@${d.range.start.offset}-${d.range.end.offset}:${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
