// SPDX-License-Identifier: Apache-2.0
// Stage: label selectors — keys and values checked against Kubernetes' rules once for every
// selector of a policy (target, pod windows, node selectors); lowering itself is pure.
import type { Requirement, Selector } from '../../grammar/ast.js';
import { diagnostic } from '../../grammar/diagnostic.js';
import type { LabelSelector } from '../model.js';
import { memoByText } from '../memo.js';
import { report, type CheckContext, type PolicyUnit } from './context.js';

const NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Kubernetes' qualified name: `[prefix/]name`, prefix a DNS subdomain ≤ 253, name ≤ 63. */
export function isValidLabelKey(key: string): boolean {
  return keyValid(key);
}

export function isValidLabelValue(value: string): boolean {
  return valueValid(value);
}

// Policies repeat the same few label keys and values: each distinct one is tested once.
const keyValid = memoByText(labelKeyValid);
const valueValid = memoByText(labelValueValid);

function labelKeyValid(key: string): boolean {
  const slash = key.indexOf('/');
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    if (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)) return false;
  }
  return name.length > 0 && name.length <= 63 && NAME.test(name);
}

function labelValueValid(value: string): boolean {
  return value === '' || (value.length <= 63 && NAME.test(value));
}

export function lowerSelector(selector: Selector | undefined): LabelSelector {
  return (selector?.requirements ?? []).map((r) => ({
    key: r.key.text,
    operator: r.operator,
    values: r.values.map((v) => v.value),
  }));
}

export function checkSelectors(ctx: CheckContext): void {
  for (const unit of ctx.units) {
    const target = unit.ast.target;
    if (target.kind === 'NodePoolSelector') checkSelector(unit, target.selector);
    for (const stmt of unit.ast.statements) {
      if (stmt.kind === 'PodWindow' || stmt.kind === 'MaintenanceWindow' || stmt.kind === 'Budget')
        checkSelector(unit, stmt.selector);
    }
  }
}

function checkSelector(unit: PolicyUnit, selector: Selector | undefined): void {
  for (const r of selector?.requirements ?? []) checkRequirement(unit, r);
}

function checkRequirement(unit: PolicyUnit, r: Requirement): void {
  if (!isValidLabelKey(r.key.text)) report(unit, diagnostic('invalidLabelKey', r.key.range, { key: r.key.text }));
  for (const v of r.values) {
    if (!isValidLabelValue(v.value)) report(unit, diagnostic('invalidLabelValue', v.range, { value: v.value }));
  }
}
