// SPDX-License-Identifier: Apache-2.0
// The embedded default's clock: simulated time that starts at the real now and runs `speed`
// times faster than the wall clock (speed 60: one real second is one simulated minute).
import type { Clock } from '../../../core/clock.js';

export class ScaledClock implements Clock {
  private readonly realStart = Date.now();

  constructor(
    private readonly speed: number,
    private readonly start = Date.now(),
  ) {}

  now(): number {
    return Math.floor(this.start + (Date.now() - this.realStart) * this.speed);
  }
}
