// SPDX-License-Identifier: Apache-2.0
// The status page's view of a running runtime: the last evaluation, recent decisions, events.
import type { StatusSource, StatusView, DecisionStatus } from './status-source.js';
import { evaluationView, toStatusEvent } from './status-source.js';
import type { Runtime, TickResult } from './runtime.js';

const KEEP = 50;

export class RuntimeStatus implements StatusSource {
  private last: TickResult | undefined;
  private readonly decisions: DecisionStatus[] = [];

  constructor(
    private readonly rt: Runtime,
    private readonly clockSpeed: number,
  ) {}

  /** Called after every tick. */
  record(r: TickResult): void {
    this.last = r;
    const at = new Date(this.rt.clock.now()).toISOString();
    const c = r.disruption.started;
    if (c)
      this.decisions.push({
        at,
        method: c.method,
        reason: c.reason,
        nodes: c.candidates.map((x) => x.node),
        decision: c.replacements.length ? 'replace' : 'delete',
      });
    for (const n of r.expired)
      this.decisions.push({ at, method: 'Expiration', reason: 'Expired', nodes: [n], decision: 'delete' });
    for (const n of r.interrupted)
      this.decisions.push({ at, method: 'Interruption', reason: 'Interrupted', nodes: [n], decision: 'delete' });
    this.decisions.splice(0, Math.max(0, this.decisions.length - KEEP));
  }

  ready(): boolean {
    return this.last !== undefined;
  }

  async status(): Promise<StatusView> {
    const ev = this.last?.disruption.evaluation;
    return {
      at: new Date(this.rt.clock.now()).toISOString(),
      clockSpeed: this.clockSpeed,
      ...evaluationView(ev),
      decisions: [...this.decisions],
      events: this.rt.events.list({ limit: KEEP }).map(toStatusEvent),
    };
  }
}
