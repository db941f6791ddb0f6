// SPDX-License-Identifier: Apache-2.0
// kpol's informers cache projected copies of Pods and Nodes (src/core/cluster/lean.ts): only the
// fields object-shapes.ts declares. A read of any other field finds nothing on a real cluster and
// everything in memory — the difference only the real-control-plane scenarios used to show. Here
// every reconciler scenario suite runs twice in memory: as is, then reading through
// ProjectedReads (projected-reads.ts), as `kpol run` reads; each test must read no dropped field,
// update no projected object whole, and decide the same things on the same ticks.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect } from 'vitest';
import type { RunnerTestCase } from 'vitest';
import { decisionsOf, type Decision } from '../k8s/scenario/decisions.js';
import { DroppedReads, projectedScenarioBackend } from './projected-reads.js';
import { memoryScenarioBackend, observeScenarios, useScenarioBackend, type Scenario } from './scenario.js';

/** The suites of test/reconciler that run through Scenario. */
const SUITES = [
  'budgets-multi-pool',
  'budgets-scoped',
  'consolidate-after',
  'consolidated-cache',
  'consolidation',
  'consolidation-policy-events',
  'do-not-disrupt-tgp',
  'drain-tiers',
  'drift',
  'drift-order',
  'expiration',
  'interruption',
  'manual-deletion',
  'nodepool-status',
  'pause',
  'pdb-drain',
  'provisioning',
  'rollback',
];

const WHOLE = 'whole objects';
const PROJECTED = 'projected copies';

function keyOf(test: RunnerTestCase): string {
  const names = [test.name];
  for (let s = test.suite; s && s.name !== WHOLE && s.name !== PROJECTED; s = s.suite) names.unshift(s.name);
  return names.join(' > ');
}

const listed = (run: Decision[]): string[] => run.map((d) => `tick ${d.tick}: ${d.decision}`);

for (const suite of SUITES) {
  describe(suite, async () => {
    const url = new URL(`./${suite}.test.ts`, import.meta.url).pathname;
    const whole = new Map<string, string[][]>();
    let created: Scenario[] = [];
    const decided = () => created.map((s) => listed(decisionsOf(s.history)));
    const reads = new DroppedReads();

    describe(WHOLE, async () => {
      beforeAll(() => {
        useScenarioBackend(memoryScenarioBackend);
        observeScenarios((s) => created.push(s));
      });
      beforeEach(() => {
        created = [];
      });
      afterEach(({ task }) => {
        whole.set(keyOf(task), decided());
      });
      await import(/* @vite-ignore */ `${url}?backend=whole`);
    });

    describe(PROJECTED, async () => {
      beforeAll(() => {
        useScenarioBackend(projectedScenarioBackend(reads));
        observeScenarios((s) => created.push(s));
      });
      beforeEach(() => {
        created = [];
        reads.seen.clear();
        reads.wholeUpdates.length = 0;
      });
      afterAll(() => {
        observeScenarios(undefined);
        useScenarioBackend(memoryScenarioBackend);
      });
      afterEach(({ task }) => {
        const key = keyOf(task);
        expect([...reads.seen.keys()], `fields "${key}" read that the projection dropped`).toEqual([]);
        expect(reads.wholeUpdates, `projected kinds "${key}" updated whole`).toEqual([]);
        if (task.result?.state === 'fail') return;
        expect(decided(), `decisions of "${key}" on projected copies (received) and whole objects`).toEqual(
          whole.get(key),
        );
      });
      await import(/* @vite-ignore */ `${url}?backend=projected`);
    });
  });
}
