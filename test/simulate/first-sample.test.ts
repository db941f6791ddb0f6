// SPDX-License-Identifier: Apache-2.0
// The report's first sample: after the machines launched at start-up have registered, so a
// cluster seeded with workloads and no nodes (the demo) does not start its node chart and its
// cost at 0 ("$0.00 → $1.86"); a snapshot with running nodes is sampled at once.
import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/edge/report/report.js';
import { simulate } from '../../src/edge/simulate/simulated-run.js';
import { demoInputs } from './demo.js';

const FROM = Date.parse('2026-01-05T00:00:00Z');

describe('the first sample', () => {
  it('of the demo (workloads, no nodes) is taken once the nodes launched for them have registered', async () => {
    const t = await simulate({ ...demoInputs(), fromMs: FROM, forMs: 30 * 60_000, stepMs: 60_000 });
    const [first, second] = t.samples;
    expect(first.nodes).toBeGreaterThan(0);
    expect(first.costPerHour).toBeGreaterThan(0);
    expect(first.pendingPods).toBe(0);
    expect(first.at - FROM).toBeLessThan(10 * 60_000);
    expect(second.at).toBe(FROM + 10 * 60_000); // the sampling grid is kept
    expect(t.summary.startCostPerHour).toBe(first.costPerHour);
    expect(renderReport(t, 'demo')).not.toContain('$0.00 →');
  });

  it('of a snapshot with running nodes is taken at the start', async () => {
    const t = await simulate({
      ...demoInputs('rules/examples/clusters/business-hours.yaml'),
      workload: [],
      fromMs: FROM,
      forMs: 20 * 60_000,
      stepMs: 60_000,
    });
    expect(t.samples[0].at).toBe(FROM);
    expect(t.samples[0].nodes).toBe(9);
  });

  it('waits at most one sampling interval, and a run shorter than the start-up still gets one sample', async () => {
    const short = await simulate({ ...demoInputs(), fromMs: FROM, forMs: 60_000, stepMs: 60_000 });
    expect(short.samples.map((s) => s.at)).toEqual([FROM]);
    const coarse = await simulate({
      ...demoInputs(),
      fromMs: FROM,
      forMs: 30 * 60_000,
      stepMs: 60_000,
      sampleEveryMs: 60_000,
    });
    expect(coarse.samples[0].at).toBe(FROM + 60_000); // the next grid point: still starting up at FROM
  });
});
