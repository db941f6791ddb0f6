// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { MetricsRegistry } from '../../src/core/observe/metrics.js';
import { parseExposition, sample } from './parse-prometheus.js';

function registry(): MetricsRegistry {
  return new MetricsRegistry()
    .declare({
      name: 'jobs_total',
      help: 'Jobs done.\nSecond line with \\ backslash.',
      type: 'counter',
      labelNames: ['queue', 'result'],
    })
    .declare({ name: 'temperature', help: 'Current temperature.', type: 'gauge', labelNames: [] })
    .declare({
      name: 'latency_seconds',
      help: 'Latency.',
      type: 'histogram',
      labelNames: ['op'],
      buckets: [0.1, 0.5, 1],
    })
    .declare({ name: 'pause_seconds', help: 'Pauses.', type: 'summary', labelNames: [] });
}

describe('MetricsRegistry', () => {
  it('renders HELP and TYPE for every family, in declaration order', () => {
    const text = registry().render();
    const comments = text.split('\n').filter((l) => l.startsWith('#'));
    expect(comments).toEqual([
      '# HELP jobs_total Jobs done.\\nSecond line with \\\\ backslash.',
      '# TYPE jobs_total counter',
      '# HELP temperature Current temperature.',
      '# TYPE temperature gauge',
      '# HELP latency_seconds Latency.',
      '# TYPE latency_seconds histogram',
      '# HELP pause_seconds Pauses.',
      '# TYPE pause_seconds summary',
    ]);
    expect(parseExposition(text).help.get('jobs_total')).toBe('Jobs done.\nSecond line with \\ backslash.');
  });

  it('counts counters and sets gauges, series exact', () => {
    const r = registry();
    r.inc('jobs_total', { queue: 'a', result: 'ok' });
    r.inc('jobs_total', { queue: 'a', result: 'ok' }, 2.5);
    r.inc('jobs_total', { result: 'fail', queue: 'b' });
    r.set('temperature', {}, -3.25);
    const p = parseExposition(r.render());
    expect(p.samples.filter((s) => s.name === 'jobs_total')).toEqual([
      { name: 'jobs_total', labels: { queue: 'a', result: 'ok' }, value: 3.5 },
      { name: 'jobs_total', labels: { queue: 'b', result: 'fail' }, value: 1 },
    ]);
    expect(sample(p, 'temperature')).toBe(-3.25);
    expect(r.value('jobs_total', { queue: 'a', result: 'ok' })).toBe(3.5);
    expect(r.value('jobs_total', { queue: 'z', result: 'ok' })).toBeUndefined();
  });

  it('prints label names in declared order', () => {
    const r = registry();
    r.inc('jobs_total', { result: 'ok', queue: 'q' });
    expect(r.render()).toContain('jobs_total{queue="q",result="ok"} 1\n');
  });

  it('escapes backslash, quote and newline in label values', () => {
    const r = registry();
    const nasty = 'a"b\\c\nd';
    r.inc('jobs_total', { queue: nasty, result: '' });
    const text = r.render();
    expect(text).toContain('jobs_total{queue="a\\"b\\\\c\\nd",result=""} 1\n');
    expect(sample(parseExposition(text), 'jobs_total', { queue: nasty, result: '' })).toBe(1);
  });

  it('renders histograms with cumulative buckets, +Inf, _sum and _count', () => {
    const r = registry();
    for (const v of [0.05, 0.1, 0.3, 0.7, 2, 5]) r.observe('latency_seconds', { op: 'get' }, v);
    const p = parseExposition(r.render());
    const buckets = p.samples.filter((s) => s.name === 'latency_seconds_bucket');
    expect(buckets).toEqual([
      { name: 'latency_seconds_bucket', labels: { op: 'get', le: '0.1' }, value: 2 },
      { name: 'latency_seconds_bucket', labels: { op: 'get', le: '0.5' }, value: 3 },
      { name: 'latency_seconds_bucket', labels: { op: 'get', le: '1' }, value: 4 },
      { name: 'latency_seconds_bucket', labels: { op: 'get', le: '+Inf' }, value: 6 },
    ]);
    for (let i = 1; i < buckets.length; i++) expect(buckets[i].value).toBeGreaterThanOrEqual(buckets[i - 1].value);
    expect(sample(p, 'latency_seconds_sum', { op: 'get' })).toBeCloseTo(8.15, 10);
    expect(sample(p, 'latency_seconds_count', { op: 'get' })).toBe(6);
    expect(r.histogram('latency_seconds', { op: 'get' })?.buckets.at(-1)).toEqual({ le: Infinity, count: 6 });
  });

  it('renders summaries with quantiles, _sum and _count; NaN quantiles when empty', () => {
    const r = registry();
    for (let i = 1; i <= 100; i++) r.observe('pause_seconds', {}, i);
    const p = parseExposition(r.render());
    expect(sample(p, 'pause_seconds', { quantile: '0' })).toBe(1);
    expect(sample(p, 'pause_seconds', { quantile: '0.5' })).toBe(50);
    expect(sample(p, 'pause_seconds', { quantile: '0.99' })).toBe(99);
    expect(sample(p, 'pause_seconds', { quantile: '1' })).toBe(100);
    expect(sample(p, 'pause_seconds_count')).toBe(100);
    expect(sample(p, 'pause_seconds_sum')).toBe(5050);
  });

  it.each([
    ['undeclared counter', (r: MetricsRegistry) => r.inc('jobs_totl', { queue: 'a', result: 'ok' }), /not declared/],
    ['undeclared gauge', (r: MetricsRegistry) => r.set('temprature', {}, 1), /not declared/],
    ['undeclared histogram', (r: MetricsRegistry) => r.observe('latency', { op: 'x' }, 1), /not declared/],
    [
      'unknown label',
      (r: MetricsRegistry) => r.inc('jobs_total', { queue: 'a', result: 'ok', reason: 'x' }),
      /no label "reason"/,
    ],
    ['missing label', (r: MetricsRegistry) => r.inc('jobs_total', { queue: 'a' }), /label "result" is missing/],
    ['set on a counter', (r: MetricsRegistry) => r.set('jobs_total', { queue: 'a', result: 'ok' }, 1), /is a counter/],
    ['observe on a gauge', (r: MetricsRegistry) => r.observe('temperature', {}, 1), /is a gauge/],
    [
      'counter decrease',
      (r: MetricsRegistry) => r.inc('jobs_total', { queue: 'a', result: 'ok' }, -1),
      /cannot decrease/,
    ],
    ['value of a histogram', (r: MetricsRegistry) => r.value('latency_seconds', { op: 'x' }), /is a histogram/],
  ])('throws on %s', (_name, act, message) => {
    expect(() => act(registry())).toThrow(message);
  });

  it.each([
    [{ name: 'jobs_total', help: '', type: 'counter', labelNames: [] }, /declared twice/],
    [{ name: '9bad', help: '', type: 'counter', labelNames: [] }, /invalid metric name/],
    [{ name: 'h', help: '', type: 'histogram', labelNames: ['le'] }, /reserved/],
    [{ name: 'h', help: '', type: 'histogram', labelNames: [], buckets: [1, 1] }, /strictly increasing/],
    [{ name: 'c', help: '', type: 'counter', labelNames: ['__x'] }, /invalid label name/],
  ] as const)('rejects the declaration %j', (family, message) => {
    expect(() => registry().declare(family)).toThrow(message);
  });

  it('renders nothing for an empty registry and ends with a newline otherwise', () => {
    expect(new MetricsRegistry().render()).toBe('');
    expect(registry().render().endsWith('\n')).toBe(true);
  });
});
