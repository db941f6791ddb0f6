// SPDX-License-Identifier: Apache-2.0
// Runs a reconciler scenario suite (test/reconciler/<name>.test.ts), unchanged, twice in one
// file: first every test on the in-memory API server, then every test on the real control
// plane. Each Scenario a test creates is observed, and after a test on the real server its
// scenarios' decisions (see ./decisions.ts) must equal those the same test made in memory, each
// made on the same tick: the time translation (scenario-timeline.ts) makes the fake clock the
// only clock kpol sees on both backends, and the harness waits for the real controllers after
// every tick.
// The suite module is imported once per backend (a query string makes it a separate module
// instance), so its tests register under one describe per backend.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, vi } from 'vitest';
import type { RunnerTestCase } from 'vitest';
import {
  memoryScenarioBackend,
  observeScenarios,
  useScenarioBackend,
  type Scenario,
  type ScenarioBackend,
} from '../../reconciler/scenario.js';
import { decisionsOf, type Decision } from './decisions.js';
import { finishScenarios, kubeScenarioBackend } from './kube-scenario.js';

const MEMORY = 'on the in-memory API server';
const KUBE = 'on the real API server';

/** The test's name under its describe blocks, without the backend's block. */
function keyOf(test: RunnerTestCase): string {
  const names = [test.name];
  for (let s = test.suite; s && s.name !== MEMORY && s.name !== KUBE; s = s.suite) names.unshift(s.name);
  return names.join(' > ');
}

/** One scenario's decisions as lines `tick N: decision`: the same decision a tick later is a difference. */
const listed = (run: Decision[]): string[] => run.map((d) => `tick ${d.tick}: ${d.decision}`);

/** Registers `suite`'s tests on both backends, comparing decisions test by test. */
export async function onBothServers(suite: string): Promise<void> {
  const url = new URL(`../../reconciler/${suite}.test.ts`, import.meta.url).pathname;
  const inMemory = new Map<string, Decision[][]>();
  let created: Scenario[] = [];
  const decided = () => created.map((s) => decisionsOf(s.history));
  // A tick on a real server waits for kube-controller-manager; the suites' limits assume memory.
  vi.setConfig({ testTimeout: 900_000 });

  const onBackend = (backend: ScenarioBackend) => {
    beforeAll(() => {
      useScenarioBackend(backend);
      observeScenarios((s) => created.push(s));
    });
    beforeEach(() => {
      created = [];
    });
  };

  describe(MEMORY, async () => {
    onBackend(memoryScenarioBackend);
    afterEach(({ task }) => {
      inMemory.set(keyOf(task), decided());
    });
    await import(/* @vite-ignore */ `${url}?backend=memory`);
  });

  describe(KUBE, async () => {
    onBackend(kubeScenarioBackend);
    afterAll(async () => {
      observeScenarios(undefined);
      await finishScenarios();
    });
    afterEach(({ task }) => {
      const key = keyOf(task);
      if (task.result?.state === 'fail') return; // the test's own failure says more
      const memory = inMemory.get(key);
      expect(memory, `the in-memory run of "${key}" recorded nothing`).toBeDefined();
      expect(
        decided().map(listed),
        `decisions of "${key}" on the real server (received) and in memory (expected)`,
      ).toEqual(memory!.map(listed));
    });
    await import(/* @vite-ignore */ `${url}?backend=kube`);
  });
}
