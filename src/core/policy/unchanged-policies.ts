// SPDX-License-Identifier: Apache-2.0
// A reload of the policy ConfigMaps checks and lowers the whole set again (names and NodePools
// must be unique across files), so every policy comes back as a new object even when one
// ConfigMap changed. The evaluator keeps its compiled rule graphs, pod-window matchers, prepared
// nodes and node verdicts by policy identity (src/core/eval/), so a set of all-new objects would
// throw all of that away: at 5,000 nodes an edit of one policy cost a full re-derivation of every
// node. Handing back the object in force for each policy that is equal field by field keeps that
// work for the policies nobody touched; a changed policy (its text, its file, or anything its
// lowering read) is a new object and starts afresh.
import type { PolicySpec } from '../../../rules/model.js';

// A spec is plain data (rules/model.ts); JSON would print Infinity and NaN as null, so they are named.
const exact = (_key: string, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? `${v}` : v);
const valueOf = (p: PolicySpec) => JSON.stringify(p, exact);

/** `next` with each policy equal to one in `previous` replaced by that (older) object. */
export function keepUnchanged(previous: readonly PolicySpec[], next: readonly PolicySpec[]): PolicySpec[] {
  if (previous.length === 0) return [...next];
  const byValue = new Map(previous.map((p) => [valueOf(p), p]));
  return next.map((p) => byValue.get(valueOf(p)) ?? p);
}
