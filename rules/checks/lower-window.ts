// SPDX-License-Identifier: Apache-2.0
// A `during …` window → WindowSpec: resolves a named schedule, applies the window's own
// `for`/`in` over the declaration's, checks the duration for its use and the zone.
import type { DurationLit, Str, WindowExpr } from '../../grammar/ast.js';
import { diagnostic, format, type Diagnostic } from '../../grammar/diagnostic.js';
import { MESSAGES } from '../../grammar/messages.js';
import type { WindowSpec } from '../model.js';
import { isKnownTimeZone } from '../window.js';
import { inUnparsedDeclaration, report, type PolicyUnit, type WindowUse } from './context.js';
import { checkCron } from './cron-diagnostic.js';
import { durationSeconds, windowDurationProblem } from './durations.js';
import { suggestion } from './notes.js';
import { timeZoneProblem } from './time-zones.js';

interface Parts {
  cron?: string;
  duration?: DurationLit;
  zone?: Str;
  errors: Diagnostic[];
  /** Why a named schedule is unusable; it was reported at its declaration. */
  declError?: string;
}

/**
 * Always returns a spec so the value stays complete; when the window is invalid the spec
 * carries `error` (its owner then fails closed, as Karpenter does with a bad budget).
 */
export function lowerWindow(unit: PolicyUnit, expr: WindowExpr, use: WindowUse): WindowSpec {
  const parts = resolveSchedule(unit, expr);
  const duration = parts.duration;
  let seconds = 0;
  if (!duration) {
    const schedule = expr.schedule.kind === 'Str' ? expr.schedule.value : expr.schedule.text;
    if (parts.cron !== undefined)
      parts.errors.push(diagnostic('windowNeedsDuration', expr.schedule.range, { schedule }));
  } else {
    const d = durationSeconds(duration);
    if ('diagnostic' in d) parts.errors.push(d.diagnostic);
    else {
      seconds = d.seconds;
      const problem = windowDurationProblem(duration, seconds, use);
      if (problem) parts.errors.push(problem);
    }
  }
  const zoneProblem = expr.timeZone && timeZoneProblem(expr.timeZone);
  if (zoneProblem) report(unit, zoneProblem);
  for (const e of parts.errors) report(unit, e);

  const timeZone = parts.zone?.value ?? unit.defaultZone;
  if (parts.errors.length > 0 || parts.cron === undefined || !duration) {
    const error = parts.errors[0]?.message ?? parts.declError;
    return { cron: parts.cron ?? '', durationSeconds: seconds, timeZone, error };
  }
  const spec = sharedSpec(unit, parts.cron, seconds, timeZone);
  // The analysis stages evaluate the window; in an unknown zone it can only fail closed.
  if (isKnownTimeZone(spec.timeZone)) unit.windows.push({ expr, duration, spec, use });
  return spec;
}

/** The file's one spec of a valid window (FileScope.windowSpecs). */
function sharedSpec(unit: PolicyUnit, cron: string, durationSeconds: number, timeZone: string): WindowSpec {
  const specs = (unit.scope.windowSpecs ??= new Map());
  const key = `${cron}\u0000${durationSeconds}\u0000${timeZone}`;
  let spec = specs.get(key);
  if (spec === undefined) specs.set(key, (spec = { cron, durationSeconds, timeZone }));
  return spec;
}

function resolveSchedule(unit: PolicyUnit, expr: WindowExpr): Parts {
  if (expr.schedule.kind === 'Str') {
    const checked = checkCron(expr.schedule);
    const cron = 'cron' in checked ? checked.cron : undefined;
    const errors = cron === undefined ? [(checked as { diagnostic: Diagnostic }).diagnostic] : [];
    return { duration: expr.duration, zone: expr.timeZone, cron, errors };
  }
  const name = expr.schedule.text;
  const scope = unit.scope;
  const named = scope.schedules.get(name);
  if (!named) {
    // A declaration that did not parse is reported; its uses are not unknown names as well.
    if (inUnparsedDeclaration(scope, name))
      return { errors: [], declError: format(MESSAGES.declarationDidNotParse.text, { name }) };
    const s = suggestion(name, [...scope.schedules.keys()], 2);
    const extra = s ? { help: s.help, fix: s.fix } : {};
    // A misspelt use is a use of the schedule meant: it is not also reported unused.
    if (s) scope.usedSchedules.add(s.fix);
    return { errors: [diagnostic('unknownSchedule', expr.schedule.range, { name }, extra)] };
  }
  scope.usedSchedules.add(name);
  // A declaration with a bad cron was reported where it is declared; don't repeat it per use.
  return {
    cron: named.cron,
    duration: expr.duration ?? named.decl.duration,
    zone: expr.timeZone ?? named.decl.timeZone,
    errors: [],
    declError: named.error,
  };
}
