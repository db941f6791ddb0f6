// SPDX-License-Identifier: Apache-2.0
// The same scenario on both backends, side by side in one file: the in-memory API server with
// in-process workload controllers, then kube-apiserver with kube-controller-manager. The
// decisions (method, reason, which NodeClaims, which replacement types, in order) must be
// identical. The tick on which each decision is made may differ; it is printed, not asserted.
import { afterAll, describe, expect, it } from 'vitest';
import type { TickResult } from '../../../src/runtime/runtime.js';
import { memoryScenarioBackend, policies, pool, replicaSet, Scenario, useScenarioBackend, type ScenarioBackend } from '../../reconciler/scenario.js';
import { closeScenarioClient, kubeScenarioBackend } from './kube-scenario.js';

afterAll(closeScenarioClient);

/** Decisions of a run, in order, each with its tick number. */
function decisions(history: readonly TickResult[]): { tick: number; decision: string }[] {
  const out: { tick: number; decision: string }[] = [];
  history.forEach((h, tick) => {
    const c = h.disruption.started;
    if (c) out.push({ tick, decision: `${c.method}/${c.reason}: ${c.candidates.map((x) => x.nodeClaim).join(',')} -> [${c.replacements.map((r) => r.instanceTypes[0]).join(',')}]` });
    for (const n of h.expired) out.push({ tick, decision: `Expiration/Expired: ${n}` });
    for (const n of h.interrupted) out.push({ tick, decision: `Interruption/Interrupted: ${n}` });
  });
  return out;
}

interface Case {
  name: string;
  run(s: () => Scenario): Promise<Scenario>;
}

const cases: Case[] = [
  {
    name: 'drift within a budget of 1',
    async run(make) {
      const s = make();
      expect(await s.until(async () => (await s.runningPods()).length === 4, 10 * 60_000)).toBe(true);
      const original = new Set((await s.nodeClaims()).map((n) => n.metadata.name));
      await s.rt.cluster.patch({ kind: 'NodePool', name: 'default' }, { spec: { template: { metadata: { labels: { team: 'platform' } } } } });
      expect(await s.until(async () => (await s.nodeClaims()).every((n) => !original.has(n.metadata.name)) && (await s.runningPods()).length === 4, 2 * 60 * 60_000)).toBe(true);
      return s;
    },
  },
  {
    name: 'emptiness after a scale-down',
    async run(make) {
      const s = make();
      expect(await s.until(async () => (await s.runningPods()).length === 3, 10 * 60_000)).toBe(true);
      await s.rt.cluster.patch({ kind: 'ReplicaSet', name: 'a', namespace: 'default' }, { spec: { replicas: 0 } });
      expect(await s.until(async () => (await s.nodes()).length === 0, 30 * 60_000)).toBe(true);
      return s;
    },
  },
];

const scenarioFor = (c: Case) => () => (c.name.startsWith('drift')
  ? new Scenario([pool('default', ['m5.xlarge']), replicaSet('a', 2, { cpu: '3' }), replicaSet('b', 2, { cpu: '3' })],
    policies('policy p for nodepool default {\n  consolidate never\n  budget 1 for Drifted\n}\n'))
  : new Scenario([pool('default', ['m5.xlarge']), replicaSet('a', 3, { cpu: '3' })], policies('policy p for nodepool default {\n  consolidate when empty after 5m\n}\n')));

async function runOn(backend: ScenarioBackend, c: Case) {
  useScenarioBackend(backend);
  const s = await c.run(scenarioFor(c));
  return decisions(s.history);
}

describe('identical decisions on the in-memory and the real API server', () => {
  it.each(cases)('$name', async (c) => {
    const memory = await runOn(memoryScenarioBackend, c);
    const kube = await runOn(kubeScenarioBackend, c);
    console.log(`${c.name}: decision ticks memory ${JSON.stringify(memory.map((d) => d.tick))}, kube ${JSON.stringify(kube.map((d) => d.tick))}`);
    expect(memory.length).toBeGreaterThan(1);
    expect(kube.map((d) => d.decision)).toEqual(memory.map((d) => d.decision));
  }, 600_000);
});
