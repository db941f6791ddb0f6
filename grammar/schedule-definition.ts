// SPDX-License-Identifier: Apache-2.0
// "Go to definition" of a named schedule: from a window that names a top-level
// `schedule NAME = …`, or from the declaration's own name, to that declaration's name.
// Schedules belong to their file (rules/checks/resolve-schedules.ts indexes them per file, the
// first declaration of a name being the one used), so the answer is always in the same text.
import type { Name, PolicyFile, Range } from './ast.js';

const within = (offset: number, r: Range): boolean => r.start.offset <= offset && offset <= r.end.offset;

/** Every schedule name a window of `file` uses, in no particular order. */
function* scheduleUses(node: unknown): Generator<Name> {
  if (Array.isArray(node)) {
    for (const child of node) yield* scheduleUses(child);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const n = node as { kind?: unknown; schedule?: { kind?: unknown } };
  // Walks every statement, today's and future ones, that holds a window anywhere inside it.
  if (n.kind === 'Window' && n.schedule?.kind === 'Name') yield n.schedule as Name;
  for (const [key, child] of Object.entries(node))
    if (key !== 'range' && key !== 'comments') yield* scheduleUses(child);
}

/** The range of the declaring name of the schedule named at `offset`, if the name is declared. */
export function scheduleDefinitionAt(file: PolicyFile, offset: number): Range | undefined {
  const declared = file.schedules.find((d) => within(offset, d.name.range));
  let name = declared?.name.text;
  if (name === undefined) {
    for (const use of scheduleUses(file.policies)) {
      if (within(offset, use.range)) {
        name = use.text;
        break;
      }
    }
  }
  if (name === undefined) return undefined;
  return file.schedules.find((d) => d.name.text === name)?.name.range;
}
