// SPDX-License-Identifier: Apache-2.0
// Time comes from an injected Clock everywhere (the simulation steps it; the CLI uses the
// system clock from src/edge/cli/). Nothing under src/ except src/edge/cli/ reads the wall clock.

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/** A clock that only moves when told to: scenario tests and `kpol simulate` step it. */
export class FakeClock implements Clock {
  constructor(private ms: number) {}

  now(): number {
    return this.ms;
  }

  set(ms: number): void {
    if (ms < this.ms) throw new Error(`FakeClock cannot go back from ${this.ms} to ${ms}`);
    this.ms = ms;
  }

  advance(ms: number): void {
    this.set(this.ms + ms);
  }
}
