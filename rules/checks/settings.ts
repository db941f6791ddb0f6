// SPDX-License-Identifier: Apache-2.0
// Stage: the policy-wide settings — consolidation, expiration, termination grace, time zone.
// Each may be written once; the first one written is the one lowered.
import type { ConsolidateStmt, ExpireStmt, Statement, TerminationGraceStmt, TimeZoneStmt } from '../../grammar/ast.js';
import { diagnostic } from '../../grammar/diagnostic.js';
import type { ConsolidationPolicy } from '../model.js';
import { report, type CheckContext, type PolicyUnit } from './context.js';
import { durationOrNever, durationSeconds } from './durations.js';
import { firstWritten } from './notes.js';
import { timeZoneProblem } from './time-zones.js';

const POLICIES: readonly ConsolidationPolicy[] = ['WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced'];

type SettingStmt = ConsolidateStmt | ExpireStmt | TerminationGraceStmt | TimeZoneStmt;
type SettingKind = SettingStmt['kind'];
const SETTING_WORDS: Record<SettingKind, string> = {
  Consolidate: 'consolidate',
  Expire: 'expire',
  TerminationGrace: 'termination grace',
  TimeZone: 'timezone',
};

export function lowerSettings(ctx: CheckContext): void {
  for (const unit of ctx.units) {
    const seen: Partial<Record<SettingKind, SettingStmt>> = {}; // four kinds: an object, not a Map
    for (const stmt of unit.ast.statements) {
      if (!isSetting(stmt)) continue;
      const kind = stmt.kind;
      const first = seen[kind];
      if (first) {
        const args = { setting: SETTING_WORDS[kind], policy: unit.ast.name.text };
        report(unit, diagnostic('duplicateSetting', stmt.range, args, { related: firstWritten(first.range) }));
        continue;
      }
      seen[kind] = stmt;
      lowerSetting(unit, stmt);
    }
  }
}

function isSetting(stmt: Statement): stmt is SettingStmt {
  return stmt.kind in SETTING_WORDS;
}

function lowerSetting(unit: PolicyUnit, stmt: SettingStmt): void {
  const spec = unit.spec;
  switch (stmt.kind) {
    case 'Consolidate': {
      if (stmt.policy) {
        const text = stmt.policy.text as ConsolidationPolicy;
        if (POLICIES.includes(text)) spec.consolidationPolicy = text;
        else report(unit, diagnostic('unknownConsolidationPolicy', stmt.policy.range, { text: stmt.policy.text }));
      }
      if (stmt.after) {
        const d = durationOrNever(stmt.after);
        if ('diagnostic' in d) report(unit, d.diagnostic);
        else spec.consolidateAfterSeconds = d.seconds;
      }
      return;
    }
    case 'Expire': {
      const d = durationOrNever(stmt.after);
      if ('diagnostic' in d) report(unit, d.diagnostic);
      else spec.expireAfterSeconds = d.seconds;
      if (stmt.graceful) spec.expiration = 'graceful';
      return;
    }
    case 'TerminationGrace': {
      const d = durationSeconds(stmt.duration);
      if ('diagnostic' in d) report(unit, d.diagnostic);
      else if (d.seconds <= 0)
        report(unit, diagnostic('negativeDuration', stmt.duration.range, { text: stmt.duration.text }));
      else spec.terminationGracePeriodSeconds = d.seconds;
      return;
    }
    case 'TimeZone': {
      const problem = timeZoneProblem(stmt.zone);
      if (problem) report(unit, problem);
      unit.defaultZone = stmt.zone.value;
      return;
    }
    default: {
      const never: never = stmt;
      throw new Error(`unhandled setting ${String((never as Statement).kind)}`);
    }
  }
}
