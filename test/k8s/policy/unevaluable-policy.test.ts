// SPDX-License-Identifier: Apache-2.0
// On the real control plane: a ConfigMap policy that checks but cannot be evaluated is never
// reported `valid` (trial evaluation refuses it and the last good policy keeps protecting its
// nodes), and a policy in force whose ticks start failing turns /readyz not ready with the
// reason and its ConfigMap from `valid` to the error, until a tick evaluates again. The runtime
// is kpol's, on the real API server through the scenario harness (kube-controller-manager runs
// the ReplicaSet); evaluation is made to fail through the Runtime's evaluator seam, since no
// policy that check accepts is known to throw any more (issue 13, defect 1).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PolicySpec } from '../../../rules/model.js';
import type { ClusterIndex } from '../../../src/core/cluster/state.js';
import type { KubeObject } from '../../../src/core/cluster/types.js';
import { Evaluator } from '../../../src/core/eval/evaluate-cluster.js';
import type { EvalOutput } from '../../../src/core/eval/output.js';
import type { DisruptionState } from '../../../src/core/facts/node-facts.js';
import { ClusterServices } from '../../../src/control/runtime/cluster-services.js';
import { RuntimeStatus } from '../../../src/control/runtime/status.js';
import { FAILED_TICKS_NOT_READY } from '../../../src/control/runtime/tick-health.js';
import { startProbeServer, type ProbeServer } from '../../../src/edge/server/probe-server.js';
import { CheckedSource } from '../../../src/control/runtime/readiness.js';
import { Scenario, pool, replicaSet, useScenarioBackend } from '../../reconciler/scenario.js';
import { sharedControlPlane } from '../control-plane/inject.js';
import { kubectlOk } from '../control-plane/kubectl.js';
import { finishScenarios, kubeScenarioBackend } from '../scenario/kube-scenario.js';

vi.setConfig({ testTimeout: 600_000 });
const cp = sharedControlPlane();
const NS = 'default'; // the harness wipes its ConfigMaps between files

/** kpol's Evaluator, except that the policies named in `failing` throw, as an overflowing date would. */
class FailingEvaluator extends Evaluator {
  static failing = new Set<string>();
  override async evaluate(
    index: ClusterIndex,
    policies: readonly PolicySpec[],
    nowMs: number,
    state?: DisruptionState,
  ): Promise<EvalOutput> {
    if (policies.some((p) => FailingEvaluator.failing.has(p.name))) throw new RangeError('Invalid time value');
    return super.evaluate(index, policies, nowMs, state);
  }
}

const KEEP = 'policy keep for nodepool default {\n  consolidate never\n}\n';
const BROKEN =
  '# would delete empty nodes at once\npolicy broken for nodepool default {\n  consolidate when empty after 0s\n}\n';
const policyCm = (text: string): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kpol-policies', namespace: NS, labels: { 'kpol.dev/policy': 'true' } },
    data: { 'p.kpol': text },
  }) as KubeObject;

let probes: ProbeServer | undefined;
let services: ClusterServices | undefined;
beforeAll(() => useScenarioBackend(kubeScenarioBackend));
afterAll(async () => {
  await services?.stop();
  await probes?.close();
  await finishScenarios();
});

const kubectl = (args: string[], stdin?: string) => kubectlOk(cp.kubeconfigPath, args, stdin);
const annotation = async () =>
  (
    await kubectl([
      '-n',
      NS,
      'get',
      'configmap',
      'kpol-policies',
      '-o',
      'jsonpath={.metadata.annotations.kpol\\.dev/status}',
    ])
  ).trim();
const eventsOf = async (reason: string) => {
  const list = JSON.parse(await kubectl(['-n', NS, 'get', 'events', '-o', 'json'])) as {
    items: { reason: string; type: string; message: string; involvedObject: { kind: string; name: string } }[];
  };
  return list.items.filter((e) => e.reason === reason);
};
const setPolicy = (text: string) =>
  kubectl([
    '-n',
    NS,
    'patch',
    'configmap',
    'kpol-policies',
    '--type',
    'merge',
    '-p',
    JSON.stringify({ data: { 'p.kpol': text } }),
  ]);

describe('a policy that cannot be evaluated, on a real API server', () => {
  it('is never reported valid, the last good policy keeps its nodes, and /readyz follows failing ticks', async () => {
    FailingEvaluator.failing = new Set();
    const s = new Scenario([pool('default', ['m5.xlarge']), replicaSet('big', 2, { cpu: '3' }), policyCm(KEEP)], [], {
      newEvaluator: () => new FailingEvaluator(),
    });
    await s.nodes(); // the objects exist
    services = new ClusterServices(s.rt, { client: s.rt.cluster, clock: s.clock, namespace: NS });
    await services.start();
    services.markInformersSynced();
    probes = await startProbeServer(
      0,
      new CheckedSource(new RuntimeStatus(s.rt, 1), services.readiness()),
      '127.0.0.1',
    );
    const readyz = async () => {
      const r = await fetch(`http://127.0.0.1:${probes!.port}/readyz`);
      return `${r.status} ${await r.text()}`;
    };
    /** One iteration of run-loop.ts. */
    const tick = async (): Promise<boolean> => {
      try {
        await s.tick();
        await services!.tickSucceeded();
        return true;
      } catch (e) {
        await services!.tickFailed(e);
        return false;
      }
    };
    const until = async (what: string, probe: () => Promise<boolean>) => {
      for (let i = 0; i < 60; i++) if (await probe()) return;
      throw new Error(`not within 60 probes: ${what}`);
    };
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

    expect(s.rt.policies.map((p) => p.name)).toEqual(['keep']);
    await until('the valid annotation', async () => (await annotation()) === 'valid' || (await sleep(500), false));
    await until('two running pods', async () => (await tick(), (await s.runningPods()).length === 2));
    const nodes = (await s.nodes()).map((n) => n.metadata.name).sort();
    expect(nodes.length).toBe(2);
    // Empty nodes, protected only by `keep`.
    await s.rt.cluster.patch({ kind: 'ReplicaSet', name: 'big', namespace: NS }, { spec: { replicas: 0 } });
    await until('no running pods', async () => (await tick(), (await s.runningPods()).length === 0));

    // (a) A version that checks but whose policy cannot be evaluated: refused, never `valid`.
    FailingEvaluator.failing = new Set(['broken']);
    await setPolicy(BROKEN);
    const seen: string[] = [];
    await until('the KPOL4001 annotation', async () => {
      await sleep(250);
      seen.push(await annotation());
      return seen.at(-1)!.includes('KPOL4001');
    });
    expect(seen.filter((a) => a !== 'valid' && !a.includes('KPOL4001'))).toEqual([]);
    expect(seen.at(-1)).toMatch(
      new RegExp(
        `^configmap/${NS}/kpol-policies/p\\.kpol:2:8: error KPOL4001: policy \`broken\` cannot be ` +
          `evaluated at .*: Invalid time value$`,
      ),
    );
    const invalid = await eventsOf('PolicyInvalid');
    expect(invalid[0]).toMatchObject({ type: 'Warning', involvedObject: { kind: 'ConfigMap', name: 'kpol-policies' } });
    expect(invalid[0].message).toContain('policy `broken` cannot be evaluated');
    // The last good policy stays in force: ticks evaluate, and no protected node is disrupted.
    expect(s.rt.policies.map((p) => p.name)).toEqual(['keep']);
    for (let i = 0; i < 8; i++) expect(await tick()).toBe(true);
    expect(await annotation()).not.toBe('valid');
    expect(
      (await s.nodes())
        .filter((n) => !n.metadata.deletionTimestamp)
        .map((n) => n.metadata.name)
        .sort(),
    ).toEqual(nodes);
    expect(await readyz()).toBe('200 ok');

    // (b, c) The policy in force stops evaluating (an instant the trial did not reach).
    await setPolicy(KEEP);
    await until('valid again', async () => (await sleep(250), (await annotation()) === 'valid'));
    FailingEvaluator.failing = new Set(['keep']);
    for (let i = 0; i < FAILED_TICKS_NOT_READY; i++) expect(await tick()).toBe(false);
    expect(await readyz()).toBe(
      `503 not ready\nticks: the last ${FAILED_TICKS_NOT_READY} ticks failed: Invalid time value`,
    );
    await until(
      'the failing annotation',
      async () => (await sleep(250), (await annotation()).includes('policy `keep` cannot be evaluated')),
    );
    const failed = await eventsOf('PolicyEvaluationFailed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ type: 'Warning', involvedObject: { kind: 'ConfigMap', name: 'kpol-policies' } });
    expect(
      (await s.nodes())
        .filter((n) => !n.metadata.deletionTimestamp)
        .map((n) => n.metadata.name)
        .sort(),
    ).toEqual(nodes);

    FailingEvaluator.failing = new Set();
    expect(await tick()).toBe(true);
    expect(await readyz()).toBe('200 ok');
    await until('valid after a tick that evaluates', async () => (await sleep(250), (await annotation()) === 'valid'));
  });
});
