// SPDX-License-Identifier: Apache-2.0
// Loads reconciler scenario suites (test/reconciler/*.test.ts), unchanged, with the kube
// backend selected, so every Scenario they create runs against the real control plane.
// They take minutes each there (every tick waits for kube-controller-manager), so they run
// only with KPOL_K8S_SCENARIOS=1; identical-decisions.test.ts always runs.
import { afterAll, it, vi } from 'vitest';
import { useScenarioBackend } from '../../reconciler/scenario.js';
import { closeScenarioClient, kubeScenarioBackend } from './kube-scenario.js';

export async function onRealServer(load: () => Promise<unknown>): Promise<void> {
  if (!process.env.KPOL_K8S_SCENARIOS) {
    it.skip('reconciler suite on the real server (set KPOL_K8S_SCENARIOS=1)', () => {});
    return;
  }
  useScenarioBackend(kubeScenarioBackend);
  // A tick on a real server waits for kube-controller-manager; the suites' own limits assume memory.
  vi.setConfig({ testTimeout: 900_000 });
  afterAll(closeScenarioClient);
  await load();
}
