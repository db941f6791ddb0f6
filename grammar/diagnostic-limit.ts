// SPDX-License-Identifier: Apache-2.0
// The most diagnostics one file reports. A file with more mistakes than a person fixes in one
// sitting is usually not kpol at all (a wrong file, a paste gone wrong); listing all of them
// made output and memory grow with the input (issue 13: 4.3 GB for one 105 KB line). Each phase
// keeps the first MAX_DIAGNOSTICS in source order and counts the rest, so the caller can say
// "N more diagnostics not shown". A message quotes at most MAX_QUOTED_CHARS of any user text.
import type { Diagnostic } from './diagnostic.js';

/**
 * 100: a screenful of errors many times over, more than any real file we have seen (the golden
 * set's largest has 30), and cheap enough for the editor's markers on every keystroke.
 */
export const MAX_DIAGNOSTICS = 100;

export interface LimitedDiagnostics {
  diagnostics: Diagnostic[];
  /** How many were left out past the limit. */
  omitted: number;
}

/**
 * The first `max` of `sorted` (in source order) and how many were left out. When every error is
 * among those left out, the first of them takes the last place shown: whether a file has errors
 * (hasErrors) must not change with the limit, or a bad file would pass.
 */
export function limitDiagnostics(sorted: readonly Diagnostic[], max = MAX_DIAGNOSTICS): LimitedDiagnostics {
  if (sorted.length <= max) return { diagnostics: [...sorted], omitted: 0 };
  const shown = sorted.slice(0, max);
  if (max > 0 && !shown.some((d) => d.severity === 'error')) {
    const error = sorted.find((d, i) => i >= max && d.severity === 'error');
    if (error) shown[max - 1] = error;
  }
  return { diagnostics: shown, omitted: sorted.length - shown.length };
}

/** Characters of user text (a name, a value) a message quotes; longer text is cut with …. */
export const MAX_QUOTED_CHARS = 80;

/** `args` with every string longer than MAX_QUOTED_CHARS cut to that length, … included. */
export function clipQuoted(args: Record<string, string | number>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(args)) {
    out[k] = typeof v === 'string' && v.length > MAX_QUOTED_CHARS ? `${v.slice(0, MAX_QUOTED_CHARS - 1)}…` : v;
  }
  return out;
}
