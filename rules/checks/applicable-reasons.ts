// SPDX-License-Identifier: Apache-2.0
// The reasons a policy's budgets can meet at all, given its settings.
import type { PolicySpec, Reason } from '../model.js';

/** Every budgeted reason of the policy: `Expired` only when expiration is graceful. */
export function budgetedReasons(spec: PolicySpec): Reason[] {
  return spec.expiration === 'graceful'
    ? ['Empty', 'Drifted', 'Underutilized', 'Expired']
    : ['Empty', 'Drifted', 'Underutilized'];
}

/** The reasons that can actually occur: no consolidation, no Empty/Underutilized; no expiry, no Expired. */
export function reachableReasons(spec: PolicySpec): Reason[] {
  const consolidates = spec.consolidateAfterSeconds !== null;
  return budgetedReasons(spec).filter((r) => {
    if (r === 'Empty') return consolidates;
    if (r === 'Underutilized') return consolidates && spec.consolidationPolicy !== 'WhenEmpty';
    if (r === 'Expired') return spec.expireAfterSeconds !== null;
    return true;
  });
}
