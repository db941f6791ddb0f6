// SPDX-License-Identifier: Apache-2.0
// A small Prometheus registry (portable: no `node:`), Karpenter's metric names (KARPENTER.md#events-and-metrics).
// Every family is declared up front with its type and label names, so a typo in a metric or
// label name throws where it is made instead of silently creating a new series.
import { escapeHelp, formatLabels, formatNumber, isLabelName, isMetricName } from './prometheus-text.js';

export type Labels = Record<string, string>;

export interface Metrics {
  inc(name: string, labels?: Labels, value?: number): void;
  set(name: string, labels: Labels, value: number): void;
  observe(name: string, labels: Labels, value: number): void;
  /** Prometheus text exposition format 0.0.4. */
  render(): string;
  /** Current value of a counter or gauge series (tests, status page). */
  value(name: string, labels?: Labels): number | undefined;
  /** Every family with its series, for an exposition library to render (src/edge/server/prom-exposition.ts). */
  snapshot(): FamilySnapshot[];
}

/** One series of a family as numbers: a counter's or gauge's value, or a distribution. */
export interface SeriesSnapshot {
  labels: Labels;
  value?: number;
  histogram?: HistogramSnapshot;
  /** Summary: quantile → value over the recent observations, with the running sum and count. */
  summary?: { quantiles: [number, number][]; sum: number; count: number };
}

export interface FamilySnapshot extends MetricFamily {
  series: SeriesSnapshot[];
}

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary';

export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  labelNames: readonly string[];
  /** Histogram upper bounds, strictly increasing; `+Inf` is implicit. */
  buckets?: readonly number[];
  /** Summary quantiles in [0, 1]; default Karpenter's 0, 0.5, 0.9, 0.99, 1. */
  quantiles?: readonly number[];
}

/** A histogram series as cumulative buckets (the last bound is `+Inf`). */
export interface HistogramSnapshot {
  buckets: { le: number; count: number }[];
  sum: number;
  count: number;
}

/** Prometheus client_golang's default buckets. */
export const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
const DEFAULT_QUANTILES = [0, 0.5, 0.9, 0.99, 1] as const;
// Quantiles come from the most recent observations only: the registry has no clock, so a
// bounded sample stands in for client_golang's sliding time window.
const SUMMARY_WINDOW = 1024;

interface Series {
  values: string[]; // label values in declared order
  value: number; // counter, gauge
  counts: number[]; // histogram: per bucket, not cumulative; the last is +Inf
  sum: number;
  count: number;
  recent: number[]; // summary: ring of recent observations
}

interface Family extends MetricFamily {
  series: Map<string, Series>;
}

export class MetricsRegistry implements Metrics {
  private readonly families = new Map<string, Family>();

  /** Declares a family; declaring the same name twice throws. */
  declare(family: MetricFamily): this {
    const { name, labelNames, type } = family;
    if (!isMetricName(name)) throw new Error(`invalid metric name "${name}"`);
    if (this.families.has(name)) throw new Error(`metric "${name}" declared twice`);
    for (const l of labelNames) if (!isLabelName(l)) throw new Error(`metric "${name}": invalid label name "${l}"`);
    if (new Set(labelNames).size !== labelNames.length) throw new Error(`metric "${name}": duplicate label name`);
    const reserved = type === 'histogram' ? 'le' : type === 'summary' ? 'quantile' : undefined;
    if (reserved && labelNames.includes(reserved)) throw new Error(`metric "${name}": label "${reserved}" is reserved`);
    const buckets = type === 'histogram' ? [...(family.buckets ?? DEFAULT_BUCKETS)] : undefined;
    if (buckets?.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= buckets[i - 1]))) {
      throw new Error(`metric "${name}": buckets must be finite and strictly increasing`);
    }
    const quantiles = type === 'summary' ? [...(family.quantiles ?? DEFAULT_QUANTILES)] : undefined;
    this.families.set(name, { ...family, labelNames: [...labelNames], buckets, quantiles, series: new Map() });
    return this;
  }

  /** Declared family names, in declaration order. */
  names(): string[] {
    return [...this.families.keys()];
  }

  family(name: string): MetricFamily | undefined {
    const f = this.families.get(name);
    return (
      f && {
        name: f.name,
        help: f.help,
        type: f.type,
        labelNames: f.labelNames,
        buckets: f.buckets,
        quantiles: f.quantiles,
      }
    );
  }

  inc(name: string, labels: Labels = {}, value = 1): void {
    const f = this.get(name, ['counter', 'gauge']);
    if (!Number.isFinite(value)) throw new Error(`metric "${name}": cannot add ${value}`);
    if (f.type === 'counter' && value < 0) throw new Error(`counter "${name}" cannot decrease`);
    this.series(f, labels).value += value;
  }

  set(name: string, labels: Labels, value: number): void {
    const f = this.get(name, ['gauge']);
    this.series(f, labels).value = value;
  }

  observe(name: string, labels: Labels, value: number): void {
    const f = this.get(name, ['histogram', 'summary']);
    if (Number.isNaN(value)) throw new Error(`metric "${name}": cannot observe NaN`);
    const s = this.series(f, labels);
    s.sum += value;
    s.count += 1;
    if (f.buckets) {
      const i = f.buckets.findIndex((b) => value <= b);
      s.counts[i === -1 ? f.buckets.length : i] += 1;
    } else {
      if (s.recent.length >= SUMMARY_WINDOW) s.recent.shift();
      s.recent.push(value);
    }
  }

  value(name: string, labels: Labels = {}): number | undefined {
    const f = this.get(name, ['counter', 'gauge']);
    return f.series.get(this.key(f, labels))?.value;
  }

  histogram(name: string, labels: Labels = {}): HistogramSnapshot | undefined {
    const f = this.get(name, ['histogram']);
    const s = f.series.get(this.key(f, labels));
    if (!s || !f.buckets) return undefined;
    const bounds = [...f.buckets, Infinity];
    let acc = 0;
    return { buckets: bounds.map((le, i) => ({ le, count: (acc += s.counts[i]) })), sum: s.sum, count: s.count };
  }

  snapshot(): FamilySnapshot[] {
    return [...this.families.values()].map((f) => ({
      ...this.family(f.name)!,
      series: [...f.series.keys()].sort().map((key) => snapshotOf(f, f.series.get(key)!)),
    }));
  }

  render(): string {
    const out: string[] = [];
    for (const f of this.families.values()) {
      out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
      const keys = [...f.series.keys()].sort();
      for (const key of keys) out.push(...renderSeries(f, f.series.get(key)!));
    }
    return out.length ? `${out.join('\n')}\n` : '';
  }

  private get(name: string, types: MetricType[]): Family {
    const f = this.families.get(name);
    if (!f) throw new Error(`metric "${name}" is not declared`);
    if (!types.includes(f.type)) throw new Error(`metric "${name}" is a ${f.type}, not a ${types.join(' or ')}`);
    return f;
  }

  private key(f: Family, labels: Labels): string {
    for (const k of Object.keys(labels)) {
      if (!f.labelNames.includes(k))
        throw new Error(`metric "${f.name}" has no label "${k}" (labels: ${f.labelNames.join(', ') || 'none'})`);
    }
    const values = f.labelNames.map((l) => {
      const v = labels[l];
      if (typeof v !== 'string') throw new Error(`metric "${f.name}": label "${l}" is missing`);
      return v;
    });
    return JSON.stringify(values);
  }

  private series(f: Family, labels: Labels): Series {
    const key = this.key(f, labels);
    let s = f.series.get(key);
    if (!s) {
      const values = JSON.parse(key) as string[];
      s = { values, value: 0, counts: new Array((f.buckets?.length ?? 0) + 1).fill(0), sum: 0, count: 0, recent: [] };
      f.series.set(key, s);
    }
    return s;
  }
}

function renderSeries(f: Family, s: Series): string[] {
  const pairs = f.labelNames.map((l, i) => [l, s.values[i]] as const);
  const labels = formatLabels(pairs);
  if (f.type === 'counter' || f.type === 'gauge') return [`${f.name}${labels} ${formatNumber(s.value)}`];
  const lines: string[] = [];
  if (f.buckets) {
    let acc = 0;
    [...f.buckets, Infinity].forEach((le, i) => {
      acc += s.counts[i];
      lines.push(`${f.name}_bucket${formatLabels([...pairs, ['le', formatNumber(le)]])} ${acc}`);
    });
  } else {
    const sorted = [...s.recent].sort((a, b) => a - b);
    for (const q of f.quantiles ?? []) {
      lines.push(
        `${f.name}${formatLabels([...pairs, ['quantile', formatNumber(q)]])} ${formatNumber(quantile(sorted, q))}`,
      );
    }
  }
  lines.push(`${f.name}_sum${labels} ${formatNumber(s.sum)}`, `${f.name}_count${labels} ${s.count}`);
  return lines;
}

function snapshotOf(f: Family, s: Series): SeriesSnapshot {
  const labels = Object.fromEntries(f.labelNames.map((l, i) => [l, s.values[i]]));
  if (f.type === 'counter' || f.type === 'gauge') return { labels, value: s.value };
  if (f.buckets) {
    let acc = 0;
    const buckets = [...f.buckets, Infinity].map((le, i) => ({ le, count: (acc += s.counts[i]) }));
    return { labels, histogram: { buckets, sum: s.sum, count: s.count } };
  }
  const sorted = [...s.recent].sort((a, b) => a - b);
  const quantiles = (f.quantiles ?? []).map((q) => [q, quantile(sorted, q)] as [number, number]);
  return { labels, summary: { quantiles, sum: s.sum, count: s.count } };
}

/** Nearest-rank quantile of an ascending list; NaN when empty, as client_golang reports. */
function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil(q * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}
