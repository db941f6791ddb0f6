// SPDX-License-Identifier: Apache-2.0
// What govern mode exposes on /metrics: the allowance kpol hands Karpenter per pool and reason
// (compare with Karpenter's own karpenter_nodepools_allowed_disruptions), the nodes it holds,
// and its writes by outcome.
import { countOf, type PolicySpec } from '../../../rules/model.js';
import type { EvalOutput } from '../../core/eval/output.js';
import { MetricsRegistry } from '../../core/observe/metrics.js';

export class GovernMetrics extends MetricsRegistry {
  wrote(action: string, result: 'ok' | 'error'): void {
    this.inc('kpol_govern_writes_total', { action, result });
  }

  record(ev: EvalOutput, governed: ReadonlyMap<string, PolicySpec>): void {
    for (const [pool, p] of Object.entries(ev.nodePools)) {
      if (!governed.has(pool)) continue;
      for (const [reason, v] of Object.entries(p.allowed))
        this.set('kpol_govern_allowed_disruptions', { nodepool: pool, reason }, countOf(v));
      const held = Object.values(ev.nodes).filter((n) => n.nodePool === pool && n.holds?.length).length;
      this.set('kpol_govern_held_nodes', { nodepool: pool }, held);
    }
  }
}

export function createGovernMetrics(): GovernMetrics {
  const m = new GovernMetrics();
  m.declare({
    name: 'kpol_govern_allowed_disruptions',
    help: 'Disruptions kpol allows Karpenter now per governed NodePool and reason (2147483647 = unlimited).',
    type: 'gauge',
    labelNames: ['nodepool', 'reason'],
  });
  m.declare({
    name: 'kpol_govern_held_nodes',
    help: 'Nodes kpol holds with karpenter.sh/do-not-disrupt per governed NodePool.',
    type: 'gauge',
    labelNames: ['nodepool'],
  });
  m.declare({
    name: 'kpol_govern_writes_total',
    help: 'Writes govern mode made, by action (govern, restore, hold, release, expire) and result.',
    type: 'counter',
    labelNames: ['action', 'result'],
  });
  m.declare({
    name: 'kpol_tick_failures_total',
    help: 'Controller ticks that failed: no decision was made on them.',
    type: 'counter',
    labelNames: [],
  });
  return m;
}
