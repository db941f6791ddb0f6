// SPDX-License-Identifier: Apache-2.0
// Decides where each comment goes when the formatter rewrites a sequence of units (top-level
// items, or the statements of a policy body). A comment on the last line of a unit, after it,
// trails that unit; a comment between a unit's tokens is hoisted above it; any other comment
// leads the next unit; comments after the last unit are left dangling at the end.
import type { Comment, Range } from './ast.js';

/** Comments attached to one unit. */
export interface Attached {
  leading: Comment[];
  trailing?: Comment;
}

/** The comments of a sequence, per unit plus those after the last unit. */
export interface Attachment {
  units: Attached[];
  dangling: Comment[];
}

/** Attaches `comments` (in source order) to `units` (ranges in source order, not overlapping). */
export function attachComments(comments: readonly Comment[], units: readonly Range[]): Attachment {
  const attached: Attached[] = units.map(() => ({ leading: [] }));
  const dangling: Comment[] = [];
  for (const comment of comments) {
    const at = comment.range.start.offset;
    const inside = units.findIndex((u) => u.start.offset < at && at < u.end.offset);
    if (inside >= 0) {
      attached[inside]!.leading.push(comment);
      continue;
    }
    const previous = lastIndexWhere(units, (u) => u.end.offset <= at);
    const prev = previous >= 0 ? attached[previous]! : undefined;
    if (prev && !prev.trailing && units[previous]!.end.line === comment.range.start.line) {
      prev.trailing = comment;
      continue;
    }
    const next = units.findIndex((u) => u.start.offset >= at);
    if (next >= 0) attached[next]!.leading.push(comment);
    else dangling.push(comment);
  }
  return { units: attached, dangling };
}

function lastIndexWhere<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i]!)) return i;
  return -1;
}
