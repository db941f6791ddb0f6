// SPDX-License-Identifier: Apache-2.0
// Stage: a declared schedule that no window names is probably a typo at its use.
import { diagnostic } from '../../grammar/diagnostic.js';
import { report, type CheckContext } from './context.js';

export function checkUnusedSchedules(ctx: CheckContext): void {
  for (const scope of ctx.scopes) {
    for (const [name, named] of scope.schedules) {
      if (!scope.usedSchedules.has(name)) report(scope, diagnostic('unusedSchedule', named.decl.name.range, { name }));
    }
  }
}
