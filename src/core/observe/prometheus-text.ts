// SPDX-License-Identifier: Apache-2.0
// The lexical rules of the Prometheus text exposition format 0.0.4: escaping and numbers.

/** Label values escape backslash, double quote and line feed. */
export function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text escapes backslash and line feed only (quotes are legal there). */
export function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** Sample values and `le`/`quantile` bounds: Go-style `+Inf`, `-Inf`, `NaN`. */
export function formatNumber(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/** `{a="x",b="y"}` in the given order, or the empty string when there are no pairs. */
export function formatLabels(pairs: readonly (readonly [string, string])[]): string {
  if (pairs.length === 0) return '';
  return `{${pairs.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',')}}`;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export const isMetricName = (s: string): boolean => METRIC_NAME.test(s);
/** Names starting with `__` are reserved for Prometheus itself. */
export const isLabelName = (s: string): boolean => LABEL_NAME.test(s) && !s.startsWith('__');
