// SPDX-License-Identifier: Apache-2.0
// Label-selector matching for kpol selectors (Kubernetes set-based requirement semantics).
import type { LabelSelector } from './model.js';

/** True when every requirement holds for `labels`; an empty selector matches everything. */
export function matchesSelector(
  labels: Readonly<Record<string, string>> | undefined,
  selector: LabelSelector,
): boolean {
  for (const r of selector) {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
    const value = has ? labels![r.key] : undefined;
    switch (r.operator) {
      case 'In':
        if (!has || !r.values.includes(value!)) return false;
        break;
      case 'NotIn':
        if (has && r.values.includes(value!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default: {
        const never: never = r.operator;
        throw new Error(`unknown selector operator ${String(never)}`);
      }
    }
  }
  return true;
}
