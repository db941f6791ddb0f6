// SPDX-License-Identifier: Apache-2.0
// Reading Karpenter's /metrics: the Prometheus text exposition format (version 0.0.4), enough
// of it for gauges and counters — `name{label="value",…} number [timestamp]` lines, `#`
// comments, escaped label values.
import { httpGetText } from './start-karpenter.js';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;

/** Parses exposition text into samples; throws on a line it cannot read, quoting it. */
export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`unreadable metrics line: ${line}`);
    samples.push({ name: m[1], labels: parseLabels(m[2] ?? '', line), value: parseValue(m[3], line) });
  }
  return samples;
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const at = LABEL.lastIndex;
    const m = LABEL.exec(text);
    if (!m) {
      if (text.slice(at).trim() === '') break;
      throw new Error(`unreadable labels in metrics line: ${line}`);
    }
    labels[m[1]] = m[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

function parseValue(text: string, line: string): number {
  switch (text) {
    case '+Inf':
      return Infinity;
    case '-Inf':
      return -Infinity;
    case 'NaN':
      return NaN;
  }
  const v = Number(text);
  if (Number.isNaN(v)) throw new Error(`unreadable value in metrics line: ${line}`);
  return v;
}

/** Fetches and parses one scrape. */
export async function scrape(metricsUrl: string): Promise<Sample[]> {
  const res = await httpGetText(metricsUrl);
  if (res.status !== 200) throw new Error(`GET ${metricsUrl}: HTTP ${res.status}`);
  return parsePrometheusText(res.body);
}

/**
 * Karpenter's label for a disruption reason as kpol names it. v1.15.0 writes the `reason` label
 * of the NodePool gauges lower-case (`underutilized`), where older releases wrote the
 * capitalised API value (`Underutilized`); both map to the API value.
 */
export function reasonName(label: string): string {
  return label === '' ? label : label[0].toUpperCase() + label.slice(1).toLowerCase();
}

/** pool → reason (`Empty`, `Drifted`, `Underutilized`) → value of one NodePool gauge in a scrape. */
export function byPoolAndReason(samples: readonly Sample[], metric: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const s of samples) {
    if (s.name !== metric) continue;
    const pool = s.labels.nodepool;
    if (pool === undefined || s.labels.reason === undefined)
      throw new Error(`${metric} sample without nodepool/reason labels: ${JSON.stringify(s.labels)}`);
    let reasons = out.get(pool);
    if (!reasons) out.set(pool, (reasons = new Map()));
    reasons.set(reasonName(s.labels.reason), s.value);
  }
  return out;
}

export const ALLOWED_DISRUPTIONS = 'karpenter_nodepools_allowed_disruptions';

/**
 * Karpenter's own allowed disruptions (before subtracting disrupting nodes): pool → reason →
 * value, from `karpenter_nodepools_allowed_disruptions{nodepool,reason}`. Unlimited is
 * 2147483647. A reason appears only once a disruption loop had a candidate for one of its methods.
 */
export async function allowedDisruptions(metricsUrl: string): Promise<Map<string, Map<string, number>>> {
  return byPoolAndReason(await scrape(metricsUrl), ALLOWED_DISRUPTIONS);
}
