// SPDX-License-Identifier: Apache-2.0
// Label matching: Kubernetes `metav1.LabelSelector` semantics for PDB selectors, and kpol's
// own `LabelSelector` (a list of requirements) for policy selectors.
import type { LabelRequirement } from '../../rules/model.js';
import type { LabelSelectorSpec } from './types.js';

export type Labels = Readonly<Record<string, string>> | undefined;

const OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

function matchesOne(labels: Labels, key: string, operator: string, values: readonly string[]): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, key);
  switch (operator) {
    case 'In':
      return has && values.includes(labels![key]);
    case 'NotIn':
      return !has || !values.includes(labels![key]);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    default:
      return false;
  }
}

/**
 * `metav1.LabelSelectorAsSelector(selector).Matches(labels)`: a missing selector matches
 * nothing, an empty one (`{}`) everything; matchLabels and matchExpressions are ANDed. An
 * invalid expression (see `labelSelectorProblem`) makes the selector match nothing.
 */
export function matchesLabelSelector(labels: Labels, selector: LabelSelectorSpec | null | undefined): boolean {
  if (selector === undefined || selector === null) return false;
  if (labelSelectorProblem(selector) !== undefined) return false;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (labels === undefined || labels[k] !== v) return false;
  }
  for (const e of selector.matchExpressions ?? []) {
    if (!matchesOne(labels, e.key, e.operator, e.values ?? [])) return false;
  }
  return true;
}

/** Why Kubernetes would refuse to turn this selector into a `labels.Selector`, if it would. */
export function labelSelectorProblem(selector: LabelSelectorSpec): string | undefined {
  for (const e of selector.matchExpressions ?? []) {
    if (!OPERATORS.has(e.operator)) return `"${e.operator}" is not a valid label selector operator`;
    const n = e.values?.length ?? 0;
    if ((e.operator === 'In' || e.operator === 'NotIn') && n === 0) return `values: for 'in', 'notin' operators, values set can't be empty (key ${e.key})`;
    if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && n > 0) return `values: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist' (key ${e.key})`;
  }
  return undefined;
}

/** kpol selector: every requirement must match; an empty list matches everything. */
export function matchesRequirements(labels: Labels, requirements: readonly LabelRequirement[]): boolean {
  for (const r of requirements) {
    if (!matchesOne(labels, r.key, r.operator, r.values)) return false;
  }
  return true;
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
