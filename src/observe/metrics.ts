// SPDX-License-Identifier: Apache-2.0
// CONTRACT STUB — implemented by the observability work. Signatures are fixed.
// A small Prometheus registry (portable: no `node:`), Karpenter's metric names (reference §5).

export type Labels = Record<string, string>;

export interface Metrics {
  inc(name: string, labels?: Labels, value?: number): void;
  set(name: string, labels: Labels, value: number): void;
  observe(name: string, labels: Labels, value: number): void;
  /** Prometheus text exposition format 0.0.4. */
  render(): string;
  /** Current value of a counter or gauge series (tests, status page). */
  value(name: string, labels?: Labels): number | undefined;
}
