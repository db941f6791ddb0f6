// SPDX-License-Identifier: Apache-2.0
// Label matching with Kubernetes `metav1.LabelSelector` semantics (PDB selectors); kpol's own
// selectors are matched by rules/selector.ts.
import type { LabelRequirement } from '../../../rules/model.js';
import { matchesSelector } from '../../../rules/selector.js';
import type { LabelSelectorSpec } from './types.js';
import { ownValue } from './own-keys.js';

export type Labels = Readonly<Record<string, string>> | undefined;

const OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/**
 * `metav1.LabelSelectorAsSelector(selector).Matches(labels)`: a missing selector matches
 * nothing, an empty one (`{}`) everything; matchLabels and matchExpressions are ANDed. An
 * invalid expression (see `labelSelectorProblem`) makes the selector match nothing.
 */
export function matchesLabelSelector(labels: Labels, selector: LabelSelectorSpec | null | undefined): boolean {
  if (selector === undefined || selector === null) return false;
  if (labelSelectorProblem(selector) !== undefined) return false;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (ownValue(labels, k) !== v) return false;
  }
  // Operators were validated above, so the expressions are kpol requirements as they stand.
  return matchesSelector(
    labels,
    (selector.matchExpressions ?? []).map((e) => ({
      key: e.key,
      operator: e.operator as LabelRequirement['operator'],
      values: e.values ?? [],
    })),
  );
}

/** Why Kubernetes would refuse to turn this selector into a `labels.Selector`, if it would. */
export function labelSelectorProblem(selector: LabelSelectorSpec): string | undefined {
  for (const e of selector.matchExpressions ?? []) {
    if (!OPERATORS.has(e.operator)) return `"${e.operator}" is not a valid label selector operator`;
    const n = e.values?.length ?? 0;
    if ((e.operator === 'In' || e.operator === 'NotIn') && n === 0)
      return `values: for 'in', 'notin' operators, values set can't be empty (key ${e.key})`;
    if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && n > 0)
      return `values: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist' (key ${e.key})`;
  }
  return undefined;
}

const signatures = new WeakMap<object, string>();

/**
 * A stable string naming a label set, for caching per-label-set results (e.g. PDB matches).
 * Memoised per labels object: objects from a snapshot or an informer are never mutated.
 */
export function labelSignature(labels: Labels): string {
  if (labels === undefined) return '';
  const hit = signatures.get(labels);
  if (hit !== undefined) return hit;
  const sig = computeSignature(labels);
  signatures.set(labels, sig);
  return sig;
}

function computeSignature(labels: Readonly<Record<string, string>>): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return '';
  keys.sort();
  let out = '';
  for (const k of keys) out += k + '\u0000' + labels[k] + '\u0001';
  return out;
}
