// SPDX-License-Identifier: Apache-2.0
// A deterministic two-week Timeline for report tests and the sample report: two NodePools,
// a business-hours Empty window in Europe/Berlin, nightly drift, a few blocked codes (one
// with markup in its message) and events.
import type { DisruptionRecord, Sample, Timeline } from '../../src/edge/simulate/timeline.js';
import { calendarFromSamples } from '../../src/edge/simulate/calendar-rows.js';
import { weekHourCell } from '../../src/edge/simulate/calendar-rows.js';

export const FROM = Date.UTC(2026, 0, 5, 0, 0); // Monday
const DAY = 86_400_000;
const SAMPLE = 15 * 60_000;

export const XSS = '<script>alert("pwned")</script> & friends';

export function syntheticTimeline(days = 14): Timeline {
  const to = FROM + days * DAY;
  const samples: Sample[] = [];
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let at = FROM; at < to; at += SAMPLE) {
    const hour = new Date(at).getUTCHours();
    const day = Math.floor((at - FROM) / DAY);
    const load = Math.max(0, Math.sin(((hour - 6) / 24) * 2 * Math.PI));
    const web = 6 + Math.round(8 * load) - Math.min(3, Math.floor(day / 4));
    const batch = hour < 6 ? 4 : 2;
    const berlinCell = weekHourCell(at, 'Europe/Berlin');
    const businessHours = berlinCell < 5 * 24 && berlinCell % 24 >= 9 && berlinCell % 24 < 17;
    samples.push({
      at,
      nodes: web + batch,
      nodesByPool: { web, batch },
      costPerHour: Number((web * 0.192 + batch * 0.0416 + rand() * 0.01).toFixed(4)),
      pendingPods: 0,
      allowed: {
        web: { Empty: businessHours ? 1 : 0, Drifted: hour < 4 ? 2 : 0, Underutilized: businessHours ? 1 : 0 },
        batch: { Empty: null, Drifted: null, Underutilized: 1 },
      },
    });
  }
  const disruptions: DisruptionRecord[] = [];
  for (let d = 0; d < days; d++) {
    const day = FROM + d * DAY;
    disruptions.push({
      at: day + 2 * 3_600_000,
      method: 'Drift',
      reason: 'Drifted',
      decision: 'replace',
      nodePool: 'web',
      nodes: [`web-${d}-a`],
      replacements: ['m5.large'],
    });
    if (d % 7 < 5) {
      disruptions.push({
        at: day + 10 * 3_600_000,
        method: 'Emptiness',
        reason: 'Empty',
        decision: 'delete',
        nodePool: 'web',
        nodes: [`web-${d}-b`, `web-${d}-c`],
        replacements: [],
      });
      disruptions.push({
        at: day + 14 * 3_600_000,
        method: 'SingleNodeConsolidation',
        reason: 'Underutilized',
        decision: 'replace',
        nodePool: 'web',
        nodes: [`web-${d}-d`],
        replacements: ['m5.large'],
      });
    }
  }
  const byReason: Record<string, number> = {};
  for (const r of disruptions) byReason[r.reason] = (byReason[r.reason] ?? 0) + 1;
  return {
    from: FROM,
    to,
    stepMs: 60_000,
    ticks: (days * DAY) / 60_000,
    samples,
    disruptions,
    calendar: calendarFromSamples(samples, { web: 'Europe/Berlin', batch: 'UTC' }),
    blocked: [
      {
        code: 'budget',
        count: 5120,
        example: 'no allowed disruptions for `Empty` in NodePool `web` (budget `0` outside business hours)',
      },
      { code: 'pdb', count: 830, example: 'pdb `payments/api` prevents pod evictions' },
      { code: 'do-not-disrupt', count: 212, example: `pod \`ops/${XSS}\` has "karpenter.sh/do-not-disrupt"` },
      {
        code: 'pod-window',
        count: 41,
        example: 'pod window business-hours.kpol:12 is closed until 09:00 Europe/Berlin',
      },
    ],
    held: [
      {
        nodePool: 'web',
        reason: 'Drifted',
        cause: 'budget',
        count: 14_400,
        example: 'policy business-hours: the budget for Drifted is 0',
      },
      {
        nodePool: 'batch',
        reason: 'Underutilized',
        cause: 'rate',
        count: 95,
        example: `rate budget 1 per 1d for Underutilized used: 1 disruption started in the last 1d; next at ${XSS}`,
      },
    ],
    events: disruptions
      .slice(-6)
      .map((r) => ({
        at: r.at,
        type: 'Normal',
        reason: 'DisruptionTerminating',
        object: `Node/${r.nodes[0]}`,
        message: `Disrupting Node: ${r.reason}/${r.decision}`,
      }))
      .concat([
        {
          at: to - 60_000,
          type: 'Warning',
          reason: 'FailedDraining',
          object: 'Node/web-x',
          message: `Failed to drain node, ${XSS}`,
        },
      ]),
    summary: {
      disruptionsByReason: byReason,
      startCostPerHour: samples[0].costPerHour,
      endCostPerHour: samples[samples.length - 1].costPerHour,
      wallSeconds: 12.4,
    },
  };
}
