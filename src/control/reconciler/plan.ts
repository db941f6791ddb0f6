// SPDX-License-Identifier: Apache-2.0
// What the disruption controller would do next, for `kpol eval` and fixtures: the same methods
// in the same order, with the scheduling simulation, on a static snapshot — plus the forceful
// expirations the expiration controller would make. Nothing here decides anew: it runs the
// reconciler's own code paths without acting.
import type { PolicySpec } from '../../../rules/model.js';
import { loadCatalog } from '../../world/cloud/catalog.js';
import type { InstanceType } from '../../world/cloud/provider.js';
import type { ClusterIndex } from '../../core/cluster/state.js';
import type { Decision, EvalOutput } from '../../core/eval/output.js';
import { resolvePolicies } from '../../core/eval/resolve-policies.js';
import { EventLog } from '../../core/observe/event-log.js';
import { FakeClock } from '../../core/clock.js';
import type { Command } from './methods/command.js';
import { METHODS } from './disruption-controller.js';
import { dueForExpiration } from './expiration.js';
import type { MethodContext } from './methods/method.js';
import { SimulationPass } from './simulation-pass.js';

const CATALOG: ReadonlyMap<string, InstanceType> = new Map(loadCatalog().map((t) => [t.name, t]));

function toDecision(c: Command, validates: boolean): Decision {
  const d: Decision = {
    method: c.method,
    reason: c.reason,
    action: c.replacements.length ? 'replace' : 'delete',
    nodes: c.candidates.map((x) => x.node),
    nodePools: [...new Set(c.candidates.map((x) => x.nodePool))].sort(),
  };
  if (c.replacements.length) d.replacements = c.replacements.map((r) => r.instanceTypes[0] ?? '');
  if (validates) d.note = 'starts after the 15 s validation, if it still holds';
  return d;
}

/** Forceful expirations due now (they do not go through budgets or the methods). */
function expirations(index: ClusterIndex, policies: readonly PolicySpec[], now: number): Decision[] {
  return dueForExpiration(index, policies, now)
    .map(({ nc, pool }) => ({ nc, pool, sn: index.nodeClaimsByName.get(nc.metadata.name) }))
    .filter((x) => x.sn?.node)
    .map(({ sn, pool }) => ({
      method: 'Expiration',
      reason: 'Expired',
      action: 'delete',
      nodes: [sn!.name],
      nodePools: [pool],
      forceful: true,
    }));
}

export function planDecisions(
  index: ClusterIndex,
  evaluation: EvalOutput,
  policies: readonly PolicySpec[],
  now: number,
  instanceTypes = CATALOG,
): Decision[] {
  let ids = 0;
  const env = {
    now,
    instanceTypes: [...instanceTypes.values()],
    marked: new Set<string>(),
    policyFor: (pool: string) =>
      resolvePolicies(
        index.snapshot.nodePools.filter((np) => np.metadata.name === pool),
        policies,
      ).byPool.get(pool)?.policy,
  };
  const pass = new SimulationPass(index, env);
  const ctx: MethodContext = {
    now,
    index,
    evaluation,
    instanceTypes,
    events: new EventLog(new FakeClock(now)),
    simulate: (candidates, consolidation, enough) => pass.simulate(candidates, consolidation, enough),
    policyFor: env.policyFor,
    newId: () => `plan-${++ids}`,
  };
  const decisions = expirations(index, policies, now);
  for (const method of METHODS) {
    const [command] = method.compute(ctx);
    if (command) return [...decisions, toDecision(command, method.validation !== 'none')];
  }
  return decisions;
}
