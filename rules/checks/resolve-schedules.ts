// SPDX-License-Identifier: Apache-2.0
// Stage: validate every top-level `schedule NAME = …` declaration once and index it by name.
import { diagnostic } from '../../grammar/diagnostic.js';
import type { CheckContext, FileScope } from './context.js';
import { report } from './context.js';
import { checkCron } from './cron-diagnostic.js';
import { durationSeconds } from './durations.js';
import { firstWritten } from './notes.js';
import { timeZoneProblem } from './time-zones.js';

export function resolveSchedules(ctx: CheckContext): void {
  for (const scope of ctx.scopes) resolveFileSchedules(scope);
}

function resolveFileSchedules(scope: FileScope): void {
  for (const decl of scope.file.schedules) {
    const name = decl.name.text;
    const first = scope.schedules.get(name);
    if (first) {
      report(
        scope,
        diagnostic('duplicateSchedule', decl.name.range, { name }, { related: firstWritten(first.decl.name.range) }),
      );
      continue;
    }
    const checked = checkCron(decl.cron);
    if ('diagnostic' in checked) report(scope, checked.diagnostic);
    // Durations are checked again where used, since what is allowed depends on the use.
    if (decl.duration) {
      const d = durationSeconds(decl.duration);
      if ('diagnostic' in d) report(scope, d.diagnostic);
    }
    const zone = decl.timeZone && timeZoneProblem(decl.timeZone);
    if (zone) report(scope, zone);
    scope.schedules.set(
      name,
      'cron' in checked ? { decl, cron: checked.cron } : { decl, error: checked.diagnostic.message },
    );
  }
}
