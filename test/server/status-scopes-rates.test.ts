// SPDX-License-Identifier: Apache-2.0
// The status page beside cluster and selector budgets and rate budgets (issue 15): each scope's
// statement, pools and room per reason, and each pool's rate budget used and left, taken from a
// real evaluation of the examples (rules/examples/fleet-drift.kpol, steady-rollout.kpol).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/core/cluster/snapshot.js';
import { indexCluster } from '../../src/core/cluster/state.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { evaluationView, type StatusView } from '../../src/control/runtime/status-source.js';
import { renderStatusPage } from '../../src/edge/server/status-page.js';

const ROOT = new URL('../../rules/examples/', import.meta.url).pathname;

async function page(example: string, at: string): Promise<string> {
  const loaded = loadPolicies([{ fileName: `${example}.kpol`, text: readFileSync(`${ROOT}${example}.kpol`, 'utf8') }]);
  expect(loaded.ok).toBe(true);
  const yaml = readFileSync(`${ROOT}clusters/${example}.yaml`, 'utf8');
  const { snapshot } = loadSnapshot(yaml, `${example}.yaml`);
  const ev = await new Evaluator().evaluate(indexCluster(snapshot!), loaded.policies, Date.parse(at));
  const view: StatusView = { at, clockSpeed: 1, ...evaluationView(ev), decisions: [], events: [] };
  return renderStatusPage(view);
}

describe('status page: scopes and rates', () => {
  it('lists each cluster and selector budget with its pools and room', async () => {
    // At night (fixture fleet-drift.test.yaml): the fleet budget of 2 has 1 left, batch's deleting node counted.
    const html = await page('fleet-drift', '2026-08-20T20:00:00Z');
    const section = html.slice(html.indexOf('<section id="scopes">'), html.indexOf('<section id="pauses">'));
    expect(section).toContain('<code>cluster budget 2 for Drifted</code> <small>fleet-drift.kpol:6</small>');
    expect(section).toMatch(
      /<td>api, batch, web<\/td><td class="num">9<\/td><td class="num">1<\/td><td class="num">1<\/td>/,
    );
    expect(section).toContain('on nodes where topology.kubernetes.io/zone');
  });

  it('shows each rate budget as used and left beside the pauses', async () => {
    const html = await page('steady-rollout', '2026-11-23T10:30:00Z');
    const section = html.slice(html.indexOf('<section id="pauses">'), html.indexOf('<section id="nodes">'));
    expect(section).toContain(
      'rate budget 2 per 1h for Drifted used: 2 disruptions started in the last 1h ' +
        '(the oldest at 2026-11-23T09:40:00Z)',
    );
    expect(html).toContain('No cluster or selector budgets.');
  });
});
