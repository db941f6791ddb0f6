// SPDX-License-Identifier: Apache-2.0
// Which policy governs each NodePool: a .kpol policy that names it or selects its labels, else
// the NodePool's own spec.disruption lowered exactly as Karpenter reads it.
import { nodePoolToPolicy } from '../../../rules/karpenter-import.js';
import type { PolicySpec } from '../../../rules/model.js';
import { matchesSelector } from '../../../rules/selector.js';
import type { NodePool } from '../cluster/types.js';

export interface Governed {
  policy: PolicySpec;
  /** Problems the API server or Karpenter would report for a NodePool's own spec. */
  problems: string[];
}

export function governs(policy: PolicySpec, pool: NodePool): boolean {
  const t = policy.target;
  return t.kind === 'names' ? t.names.includes(pool.metadata.name) : matchesSelector(pool.metadata.labels, t.selector);
}

/**
 * NodePool objects are immutable snapshots: lowering each once keeps its compiled engine (and memo) alive across
 * instants.
 */
const lowered = new WeakMap<NodePool, Governed>();

function ownPolicy(pool: NodePool): Governed {
  let g = lowered.get(pool);
  if (!g) {
    const { policy, diagnostics } = nodePoolToPolicy(pool);
    g = { policy, problems: diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.path}: ${d.message}`) };
    lowered.set(pool, g);
  }
  return g;
}

/** Maps every NodePool name to its governing policy; `warnings` names overlapping selectors. */
export function resolvePolicies(
  pools: readonly NodePool[],
  policies: readonly PolicySpec[],
): { byPool: Map<string, Governed>; warnings: string[] } {
  const byPool = new Map<string, Governed>();
  const warnings: string[] = [];
  for (const pool of pools) {
    const matching = policies.filter((p) => governs(p, pool));
    if (matching.length > 1) {
      warnings.push(
        `NodePool ${pool.metadata.name} is selected by ${matching.map((p) => p.name).join(', ')};` +
          ` ${matching[0].name} governs it`,
      );
    }
    if (matching.length > 0) {
      byPool.set(pool.metadata.name, { policy: matching[0], problems: [] });
      continue;
    }
    byPool.set(pool.metadata.name, ownPolicy(pool));
  }
  return { byPool, warnings };
}
