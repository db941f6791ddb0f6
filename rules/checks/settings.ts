// SPDX-License-Identifier: Apache-2.0
// Stage: the policy-wide settings — consolidation, expiration, termination grace, time zone.
// Each may be written once; the first one written is the one lowered.
import type { Statement } from '../../grammar/ast.js';
import { diagnostic } from '../../grammar/diagnostic.js';
import type { ConsolidationPolicy } from '../model.js';
import { report, type CheckContext, type PolicyUnit } from './context.js';
import { durationOrNever, durationSeconds } from './durations.js';
import { firstWritten } from './notes.js';
import { timeZoneProblem } from './time-zones.js';

const POLICIES: readonly ConsolidationPolicy[] = ['WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced'];

type SettingKind = 'Consolidate' | 'Expire' | 'TerminationGrace' | 'TimeZone';
const SETTING_WORDS: Record<SettingKind, string> = {
  Consolidate: 'consolidate',
  Expire: 'expire',
  TerminationGrace: 'termination grace',
  TimeZone: 'timezone',
};

export function lowerSettings(ctx: CheckContext): void {
  for (const unit of ctx.units) {
    const seen = new Map<SettingKind, Statement>();
    for (const stmt of unit.ast.statements) {
      if (!(stmt.kind in SETTING_WORDS)) continue;
      const kind = stmt.kind as SettingKind;
      const first = seen.get(kind);
      if (first) {
        const args = { setting: SETTING_WORDS[kind], policy: unit.ast.name.text };
        report(unit, diagnostic('duplicateSetting', stmt.range, args, { related: firstWritten(first.range) }));
        continue;
      }
      seen.set(kind, stmt);
      lowerSetting(unit, stmt);
    }
  }
}

function lowerSetting(unit: PolicyUnit, stmt: Statement): void {
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
      else if (d.seconds <= 0) report(unit, diagnostic('negativeDuration', stmt.duration.range, { text: stmt.duration.text }));
      else spec.terminationGracePeriodSeconds = d.seconds;
      return;
    }
    case 'TimeZone': {
      const problem = timeZoneProblem(stmt.zone);
      if (problem) report(unit, problem);
      unit.defaultZone = stmt.zone.value;
      return;
    }
    default:
      return;
  }
}
