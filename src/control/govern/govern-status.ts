// SPDX-License-Identifier: Apache-2.0
// The status page's view of govern mode: the last evaluation (allowed disruptions per pool and
// reason, candidates and why-not per node, and where a node hold blocks more than the policy
// says), the writes kpol made, and its events.
import type { Clock } from '../../core/clock.js';
import type { DecisionStatus, StatusSource, StatusView } from '../runtime/status-source.js';
import { evaluationView, toStatusEvent } from '../runtime/status-source.js';
import type { Governor, GovernTick } from './governor.js';

const KEEP = 50;

export class GovernStatus implements StatusSource {
  private last: GovernTick | undefined;
  private readonly decisions: DecisionStatus[] = [];

  constructor(
    private readonly governor: Governor,
    private readonly clock: Clock,
  ) {}

  record(t: GovernTick): void {
    this.last = t;
    const at = new Date(this.clock.now()).toISOString();
    for (const w of t.writes) {
      const changed = Object.keys(w.changes).join(', ');
      this.decisions.push({ at, method: `govern: ${w.action}`, reason: changed, nodes: [w.object], decision: 'write' });
    }
    this.decisions.splice(0, Math.max(0, this.decisions.length - KEEP));
  }

  ready(): boolean {
    return this.last !== undefined;
  }

  async status(): Promise<StatusView> {
    const ev = this.last?.evaluation;
    return {
      at: new Date(this.clock.now()).toISOString(),
      clockSpeed: 1,
      ...evaluationView(ev, (n) =>
        n.overblocks
          ? [
              {
                code: 'GovernHoldOverblocks',
                message:
                  `kpol holds this node with karpenter.sh/do-not-disrupt, which also ` +
                  `blocks ${n.overblocks.join(', ')} (the policy allows them)`,
              },
            ]
          : [],
      ),
      decisions: [...this.decisions],
      events: this.governor.events.list({ limit: KEEP }).map(toStatusEvent),
    };
  }
}
