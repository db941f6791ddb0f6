// SPDX-License-Identifier: Apache-2.0
// Which version of each policy ConfigMap to enforce. Every policy file is checked together with
// all the others (names and NodePools must be unique across them), but a broken ConfigMap must
// never take the good ones down with it, nor replace its own last good version. So the last
// good version is kept per ConfigMap: a changed ConfigMap is adopted when the whole set stays
// valid with it, and rejected (its last good version stays in force) when it does not.
import type { Diagnostic } from '../../../grammar/diagnostic.js';
import type { PolicySpec } from '../../../rules/model.js';
import { loadPolicies, type LoadedPolicies, type PolicySource } from './load.js';

/** The policy files of one ConfigMap; `id` is `<namespace>/<name>`. */
export interface PolicyBundle {
  id: string;
  sources: PolicySource[];
}

export interface LocatedError {
  fileName: string;
  diagnostic: Diagnostic;
}

export interface Resolution {
  /** Per ConfigMap, the sources now enforced (its current version or its last good one). */
  accepted: Map<string, PolicySource[]>;
  /** ConfigMaps whose current version was refused, with the errors that refused it (first first). */
  rejected: Map<string, LocatedError[]>;
  /** The policies to enforce; undefined when no valid set could be formed (keep the current ones). */
  policies: PolicySpec[] | undefined;
}

const sameSources = (a: readonly PolicySource[] | undefined, b: readonly PolicySource[]): boolean =>
  a !== undefined && a.length === b.length && a.every((s, i) => s.fileName === b[i].fileName && s.text === b[i].text);

function errorsOf(loaded: LoadedPolicies, files?: ReadonlySet<string>): LocatedError[] {
  const out: LocatedError[] = [];
  for (const f of loaded.files) {
    if (files && !files.has(f.fileName)) continue;
    for (const d of f.diagnostics) if (d.severity === 'error') out.push({ fileName: f.fileName, diagnostic: d });
  }
  return out;
}

/**
 * Resolves the enforced set. `fixed` (policy files given on the command line) is always part of
 * it and must be valid on its own. Bundles absent from `current` are dropped (a deleted
 * ConfigMap takes its policies with it). Changed bundles are tried all at once first (the usual
 * case: everything is valid), then one at a time in id order, each kept only if the set stays
 * valid: deterministic, and a ConfigMap is never blamed for another's errors unless the two
 * conflict, in which case the later id is the one refused.
 */
export function resolveLastGood(
  fixed: readonly PolicySource[],
  current: readonly PolicyBundle[],
  previous: ReadonlyMap<string, readonly PolicySource[]>,
  nowMs?: number,
): Resolution {
  const ordered = [...current].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const load = (m: ReadonlyMap<string, readonly PolicySource[]>) =>
    loadPolicies([...fixed, ...[...m.values()].flat()], nowMs);

  const all = new Map(ordered.map((b) => [b.id, b.sources]));
  const whole = load(all);
  if (whole.ok) return { accepted: all, rejected: new Map(), policies: whole.policies };

  const working = new Map<string, PolicySource[]>();
  const changed: PolicyBundle[] = [];
  for (const b of ordered) {
    const before = previous.get(b.id);
    if (sameSources(before, b.sources)) working.set(b.id, b.sources);
    else {
      if (before) working.set(b.id, [...before]);
      changed.push(b);
    }
  }
  const rejected = new Map<string, LocatedError[]>();
  let loaded = load(working);
  for (const b of changed) {
    const trial = new Map(working).set(b.id, b.sources);
    const result = load(trial);
    if (result.ok) {
      working.set(b.id, b.sources);
      loaded = result;
      continue;
    }
    const own = errorsOf(result, new Set(b.sources.map((s) => s.fileName)));
    // A conflict can be reported on the other file (a duplicate name is flagged where it repeats).
    rejected.set(b.id, own.length > 0 ? own : errorsOf(result));
  }
  // `working` only ever grows by versions that kept the set valid, so `loaded` is valid unless
  // the previous set itself was not (only possible when `fixed` changed or time turned a
  // warning into an error): the caller then keeps enforcing what it had.
  return { accepted: working, rejected, policies: loaded.ok ? loaded.policies : undefined };
}
