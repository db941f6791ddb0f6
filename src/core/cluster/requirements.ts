// SPDX-License-Identifier: Apache-2.0
// Node requirements as sets per label key (Karpenter's `scheduling.Requirements`): intersecting a
// NodePool's requirements with pods', checking them against labels and instance types.
import type { NodeSelectorRequirement } from './types.js';

/**
 * The values one key may take. `complement: false` = exactly `values` (empty: the key must be
 * absent); `complement: true` = any value except `values` (the key must exist). `gt`/`lt` bound
 * integer values further (strict).
 */
export interface Requirement {
  readonly key: string;
  readonly complement: boolean;
  readonly values: ReadonlySet<string>;
  readonly gt?: number;
  readonly lt?: number;
}

/** Key → requirement; keys not present are unconstrained. */
export type Requirements = ReadonlyMap<string, Requirement>;

// Kubernetes parses Gt/Lt operands with strconv.ParseInt, which takes an optional sign.
const intValue = (v: string): number | undefined => (/^[+-]?\d+$/.test(v) ? Number(v) : undefined);

function inBounds(r: Requirement, v: string): boolean {
  if (r.gt === undefined && r.lt === undefined) return true;
  const n = intValue(v);
  if (n === undefined) return false;
  return (r.gt === undefined || n > r.gt) && (r.lt === undefined || n < r.lt);
}

/** Whether `value` (undefined = label absent) satisfies the requirement. */
export function allows(r: Requirement, value: string | undefined): boolean {
  if (value === undefined) return !r.complement && r.values.size === 0;
  return (r.complement ? !r.values.has(value) : r.values.has(value)) && inBounds(r, value);
}

/** Whether the requirements leave `key` open to `value` (a key they do not mention is unconstrained). */
export function allowsLabel(reqs: Requirements, key: string, value: string): boolean {
  const r = reqs.get(key);
  return r === undefined || allows(r, value);
}

/** True when no value and no absence satisfies it (an `In` emptied by intersection, or `Gt 5, Lt 6`). */
function isEmpty(r: Requirement): boolean {
  if (r.complement) return r.gt !== undefined && r.lt !== undefined && r.lt - r.gt <= 1;
  return false; // a non-complement set with no values still allows "absent"
}

/** One NodeSelectorRequirement as a set. Gt/Lt with a non-integer value can match nothing. */
export function requirementOf(s: NodeSelectorRequirement): Requirement {
  const values = s.values ?? [];
  switch (s.operator) {
    case 'In':
      return { key: s.key, complement: false, values: new Set(values) };
    case 'NotIn':
      return { key: s.key, complement: true, values: new Set(values) };
    case 'Exists':
      return { key: s.key, complement: true, values: new Set() };
    case 'DoesNotExist':
      return { key: s.key, complement: false, values: new Set() };
    case 'Gt':
    case 'Lt': {
      const n = values.length === 1 ? intValue(values[0]) : undefined;
      if (n === undefined) return { key: s.key, complement: true, values: new Set(), gt: 0, lt: 0 };
      return s.operator === 'Gt'
        ? { key: s.key, complement: true, values: new Set(), gt: n }
        : { key: s.key, complement: true, values: new Set(), lt: n };
    }
    default: {
      const never: never = s.operator;
      throw new Error(`unknown node selector operator ${String(never)}`);
    }
  }
}

/** Intersection of two requirements on the same key. */
export function intersectRequirement(a: Requirement, b: Requirement): Requirement {
  const gt = a.gt === undefined ? b.gt : b.gt === undefined ? a.gt : Math.max(a.gt, b.gt);
  const lt = a.lt === undefined ? b.lt : b.lt === undefined ? a.lt : Math.min(a.lt, b.lt);
  const bounds = { ...(gt !== undefined && { gt }), ...(lt !== undefined && { lt }) };
  if (a.complement && b.complement)
    return { key: a.key, complement: true, values: new Set([...a.values, ...b.values]), ...bounds };
  const [set, other] = a.complement ? [b, a] : [a, b];
  const values = [...set.values].filter((v) => allows(other, v) && inBounds({ ...set, ...bounds }, v));
  return { key: a.key, complement: false, values: new Set(values) };
}

export function requirementsOf(list: readonly NodeSelectorRequirement[] | undefined): Requirements {
  const out = new Map<string, Requirement>();
  for (const s of list ?? []) addRequirement(out, requirementOf(s));
  return out;
}

/** Labels as `In [value]` requirements. */
export function requirementsFromLabels(labels: Readonly<Record<string, string>> | undefined): Requirements {
  const out = new Map<string, Requirement>();
  for (const [k, v] of Object.entries(labels ?? {})) out.set(k, { key: k, complement: false, values: new Set([v]) });
  return out;
}

function addRequirement(into: Map<string, Requirement>, r: Requirement): void {
  const prev = into.get(r.key);
  into.set(r.key, prev ? intersectRequirement(prev, r) : r);
}

export function intersect(a: Requirements, b: Requirements): Requirements {
  const out = new Map(a);
  for (const r of b.values()) addRequirement(out, r);
  return out;
}

/** NotIn or DoesNotExist: satisfied by an absent label. */
export const isNegative = (r: Requirement): boolean =>
  (r.complement && r.values.size > 0 && r.gt === undefined && r.lt === undefined) ||
  (!r.complement && r.values.size === 0);

/**
 * Karpenter's `Requirements.Intersects`: every shared key must still allow some value, except
 * that two "negative" requirements (NotIn / DoesNotExist) always agree. The reason when not.
 */
export function intersectionProblem(existing: Requirements, incoming: Requirements): string | undefined {
  for (const [key, inc] of incoming) {
    const ex = existing.get(key);
    if (!ex) continue;
    const both = intersectRequirement(ex, inc);
    const empty = both.complement ? isEmpty(both) : both.values.size === 0;
    if (!empty) continue;
    if (isNegative(inc) && isNegative(ex)) continue;
    return `key ${key}, ${formatRequirement(inc)} not in ${formatRequirement(ex)}`;
  }
  return undefined;
}

/**
 * Whether one `v1.NodeSelectorRequirement` admits a label value (undefined = label absent), the
 * kube-scheduler's semantics: Gt/Lt need exactly one integer operand and an integer label.
 */
export function requirementAllows(s: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = s.values ?? [];
  switch (s.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      const have = value === undefined ? undefined : intValue(value);
      const want = values.length === 1 ? intValue(values[0]) : undefined;
      if (have === undefined || want === undefined) return false;
      return s.operator === 'Gt' ? have > want : have < want;
    }
    default: {
      const never: never = s.operator;
      throw new Error(`unknown node selector operator ${String(never)}`);
    }
  }
}

/** `v1.NodeSelectorRequirement` against concrete node labels. */
export function matchesExpression(
  labels: Readonly<Record<string, string>> | undefined,
  s: NodeSelectorRequirement,
): boolean {
  return requirementAllows(
    s,
    labels !== undefined && Object.prototype.hasOwnProperty.call(labels, s.key) ? labels[s.key] : undefined,
  );
}

/** Back to NodeSelectorRequirements (sorted by key; a bounded complement may need several entries). */
export function toNodeSelectorRequirements(reqs: Requirements): NodeSelectorRequirement[] {
  const out: NodeSelectorRequirement[] = [];
  for (const key of [...reqs.keys()].sort()) {
    const r = reqs.get(key)!;
    const values = [...r.values].sort();
    if (!r.complement) {
      out.push(values.length === 0 ? { key, operator: 'DoesNotExist' } : { key, operator: 'In', values });
      continue;
    }
    if (values.length > 0) out.push({ key, operator: 'NotIn', values });
    if (r.gt !== undefined) out.push({ key, operator: 'Gt', values: [String(r.gt)] });
    if (r.lt !== undefined) out.push({ key, operator: 'Lt', values: [String(r.lt)] });
    if (values.length === 0 && r.gt === undefined && r.lt === undefined) out.push({ key, operator: 'Exists' });
  }
  return out;
}

/** `key In [a b]`-style text for messages. */
export function formatRequirement(r: Requirement): string {
  return toNodeSelectorRequirements(new Map([[r.key, r]]))
    .map((s) => `${s.key} ${s.operator}${s.values ? ` [${s.values.join(' ')}]` : ''}`)
    .join(', ');
}
