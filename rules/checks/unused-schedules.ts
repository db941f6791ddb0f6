// SPDX-License-Identifier: Apache-2.0
// Stage: a declared schedule that no window names is probably a typo at its use.
import { diagnostic } from '../../grammar/diagnostic.js';
import { report, type CheckContext } from './context.js';

export function checkUnusedSchedules(ctx: CheckContext): void {
  for (const scope of ctx.scopes) {
    const unparsed = new Set((scope.file.unparsed ?? []).flatMap((u) => u.words));
    for (const [name, named] of scope.schedules) {
      // A use in text that did not parse is a use all the same.
      if (!scope.usedSchedules.has(name) && !unparsed.has(name))
        report(scope, diagnostic('unusedSchedule', named.decl.name.range, { name }));
    }
  }
}
