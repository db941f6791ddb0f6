// SPDX-License-Identifier: Apache-2.0
// `/metrics` comes from prom-client: every family of kpol's registry with the same samples the
// registry holds (Karpenter's names, labels and values unchanged), plus prom-client's default
// process and Node.js runtime metrics. Parsed with the independent reader of test/observe.
import { afterEach, describe, expect, it } from 'vitest';
import { createKarpenterMetrics } from '../../src/core/observe/karpenter-metrics.js';
import { startStatusServer, type StatusServer } from '../../src/edge/server/status-server.js';
import { parseExposition, type ParsedSample } from '../observe/parse-prometheus.js';

const servers: StatusServer[] = [];
afterEach(async () => {
  while (servers.length) await servers.pop()!.close();
});

function filled() {
  const m = createKarpenterMetrics();
  m.set('karpenter_nodepools_allowed_disruptions', { nodepool: 'web', reason: 'Drifted' }, 2147483647);
  m.set('karpenter_nodepools_allowed_disruptions', { nodepool: 'web', reason: 'Empty' }, 0);
  m.inc(
    'karpenter_voluntary_disruption_decisions_total',
    { decision: 'delete', reason: 'empty', consolidation_type: 'empty' },
    3,
  );
  m.observe('karpenter_nodes_termination_duration_seconds', { nodepool: 'web' }, 12.5);
  m.observe(
    'karpenter_voluntary_disruption_decision_evaluation_duration_seconds',
    { reason: 'underutilized', consolidation_type: 'single' },
    0.02,
  );
  return m;
}

const key = (s: ParsedSample) => `${s.name}${JSON.stringify(Object.entries(s.labels).sort())}`;
const byKey = (samples: ParsedSample[]) => new Map(samples.map((s) => [key(s), s.value]));

async function scrape(metrics = filled()) {
  const server = await startStatusServer({
    port: 0,
    host: '127.0.0.1',
    metrics,
    source: {
      ready: () => true,
      status: async () => {
        throw new Error('unused');
      },
    },
  });
  servers.push(server);
  const res = await fetch(`${server.url}/metrics`);
  return { res, text: await res.text(), metrics };
}

describe('/metrics through prom-client', () => {
  it("serves the registry's families with exactly the registry's samples", async () => {
    const { res, text, metrics } = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const served = parseExposition(text);
    const own = parseExposition(metrics.render());
    for (const [name, type] of own.type) expect(served.type.get(name), name).toBe(type);
    for (const [name, help] of own.help) expect(served.help.get(name), name).toBe(help);
    const servedSamples = byKey(served.samples);
    for (const [k, v] of byKey(own.samples)) expect(servedSamples.get(k), k).toBe(v);
  });

  it('includes the default process and runtime metrics', async () => {
    const { text } = await scrape();
    const served = parseExposition(text);
    for (const name of [
      'process_resident_memory_bytes',
      'process_cpu_seconds_total',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_gc_duration_seconds',
    ]) {
      expect(served.type.has(name), name).toBe(true);
    }
    expect(served.samples.find((s) => s.name === 'process_resident_memory_bytes')!.value).toBeGreaterThan(1e6);
  });

  it('shows values recorded after the first scrape, and families declared later', async () => {
    const metrics = filled();
    const { text: first } = await scrape(metrics);
    expect(first).not.toContain('kpol_late_total');
    metrics.inc(
      'karpenter_voluntary_disruption_decisions_total',
      { decision: 'delete', reason: 'empty', consolidation_type: 'empty' },
      2,
    );
    metrics
      .declare({ name: 'kpol_late_total', help: 'declared after the first scrape', type: 'counter', labelNames: [] })
      .inc('kpol_late_total');
    const res = await fetch(`${servers[0].url}/metrics`);
    const served = parseExposition(await res.text());
    const value = (name: string, labels = {}) =>
      byKey(served.samples).get(`${name}${JSON.stringify(Object.entries(labels).sort())}`);
    expect(
      value('karpenter_voluntary_disruption_decisions_total', {
        consolidation_type: 'empty',
        decision: 'delete',
        reason: 'empty',
      }),
    ).toBe(5);
    expect(value('kpol_late_total')).toBe(1);
  });
});
