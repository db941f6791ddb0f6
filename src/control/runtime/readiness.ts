// SPDX-License-Identifier: Apache-2.0
// What `/readyz` answers for a controller on a real cluster: named checks, all of which must
// pass. `/healthz` stays unconditional (the process answers), so a replica that is not ready —
// policies not loaded yet, or a leader whose informers have not synced — is taken out of the
// Service's endpoints but never restarted for it.
import type { StatusSource, StatusView } from './status-source.js';

export interface ReadinessCheck {
  name: string;
  /** Undefined when the check passes, else why not (one short phrase). */
  failure(): string | undefined;
}

/** A StatusSource whose readiness is `checks`, with the failures to print. */
export class CheckedSource implements StatusSource {
  constructor(
    private readonly inner: StatusSource,
    private readonly checks: readonly ReadinessCheck[],
  ) {}

  failures(): string[] {
    return this.checks.flatMap((c) => {
      const why = c.failure();
      return why === undefined ? [] : [`${c.name}: ${why}`];
    });
  }

  ready(): boolean {
    return this.failures().length === 0;
  }

  status(): Promise<StatusView> {
    return this.inner.status();
  }
}
