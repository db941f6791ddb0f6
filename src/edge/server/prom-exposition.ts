// SPDX-License-Identifier: Apache-2.0
// `/metrics` through prom-client, the standard Node.js Prometheus library: it renders kpol's
// families (Karpenter's names, kpol's own) and adds its default process and runtime metrics —
// resident memory, CPU, open file descriptors, event-loop lag, GC durations, heap spaces — that
// operators expect from every controller.
//
// kpol's metrics are still recorded in src/core/observe/metrics.ts: that registry is portable
// (the editor and `kpol simulate` run the controllers in the browser and in simulated time,
// where prom-client's Node-only collectors cannot run) and declares each family once with its
// labels. Here each family is registered with prom-client as a collector that reads the
// registry's current values at scrape time, so both show the same numbers.
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { FamilySnapshot, Labels, Metrics } from '../../core/observe/metrics.js';

interface Sample {
  labels: Labels;
  value: number;
  metricName?: string;
}

/** The samples of one family as prom-client renders them (`_bucket`, `_sum`, `_count` names). */
export function samplesOf(f: FamilySnapshot): Sample[] {
  return f.series.flatMap((s): Sample[] => {
    if (s.value !== undefined) return [{ labels: s.labels, value: s.value }];
    const dist = s.histogram ?? s.summary!;
    const body = s.histogram
      ? s.histogram.buckets.map((b) => ({
          labels: { ...s.labels, le: formatLe(b.le) },
          value: b.count,
          metricName: `${f.name}_bucket`,
        }))
      : s.summary!.quantiles.map(([q, v]) => ({ labels: { ...s.labels, quantile: String(q) }, value: v }));
    return [
      ...body,
      { labels: s.labels, value: dist.sum, metricName: `${f.name}_sum` },
      { labels: s.labels, value: dist.count, metricName: `${f.name}_count` },
    ];
  });
}

const formatLe = (le: number): string => (le === Infinity ? '+Inf' : String(le));

export class PromExposition {
  private readonly registry = new Registry();
  private readonly bridged = new Set<string>();

  constructor(private readonly metrics: Metrics) {
    collectDefaultMetrics({ register: this.registry });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text: kpol's families (declared since the last scrape too), then prom-client's own. */
  async render(): Promise<string> {
    for (const f of this.metrics.snapshot()) if (!this.bridged.has(f.name)) this.bridge(f);
    return this.registry.metrics();
  }

  private bridge(declared: FamilySnapshot): void {
    const { name, help, type } = declared;
    const read = (): FamilySnapshot =>
      this.metrics.snapshot().find((f) => f.name === name) ?? { ...declared, series: [] };
    // prom-client renders any registered object with this shape (its own metric classes share it).
    const collector = {
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: samplesOf(read()) }),
    };
    this.registry.registerMetric(collector as unknown as Parameters<Registry['registerMetric']>[0]);
    this.bridged.add(name);
  }
}
