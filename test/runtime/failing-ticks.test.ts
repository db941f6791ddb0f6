// SPDX-License-Identifier: Apache-2.0
// A policy in force whose evaluation starts failing in the ticks (an instant the trial did not
// reach): nothing is disrupted on those ticks, its ConfigMap turns from `valid` to the error with
// one Warning Event, /readyz turns not ready after FAILED_TICKS_NOT_READY failures in a row with
// the reason, failed ticks are counted, and one tick that evaluates again undoes all of it.
// Evaluation is made to fail through the Runtime's evaluator seam (a test double of kpol's own
// Evaluator; the cluster is the real in-memory API server).
import { describe, expect, it } from 'vitest';
import type { PolicySpec } from '../../rules/model.js';
import type { ClusterIndex } from '../../src/core/cluster/state.js';
import type { ConfigMap, KubeObject } from '../../src/core/cluster/types.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import type { EvalOutput } from '../../src/core/eval/output.js';
import type { DisruptionState } from '../../src/core/facts/node-facts.js';
import { ClusterServices } from '../../src/control/runtime/cluster-services.js';
import { RuntimeStatus } from '../../src/control/runtime/status.js';
import { FAILED_TICKS_NOT_READY } from '../../src/control/runtime/tick-health.js';
import { CheckedSource } from '../../src/control/runtime/readiness.js';
import { Scenario, pool, replicaSet } from '../reconciler/scenario.js';
import { seq } from '../support/regex.js';

const NS = 'kpol-system';
const POLICY =
  '# consolidates empty nodes at once\npolicy fast for nodepool default {\n  consolidate when empty after 0s\n}\n';
const policyCm = (): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'kpol-policies', namespace: NS, labels: { 'kpol.dev/policy': 'true' } },
  data: { 'p.kpol': POLICY },
});

/** kpol's Evaluator, except that a policy named `fast` throws while `broken` is set, as an overflowing date would. */
class SwitchableEvaluator extends Evaluator {
  static broken = false;
  override async evaluate(
    index: ClusterIndex,
    policies: readonly PolicySpec[],
    nowMs: number,
    state?: DisruptionState,
  ): Promise<EvalOutput> {
    if (SwitchableEvaluator.broken && policies.some((p) => p.name === 'fast'))
      throw new RangeError('Invalid time value');
    return super.evaluate(index, policies, nowMs, state);
  }
}

async function world() {
  SwitchableEvaluator.broken = false;
  const s = new Scenario(
    [pool('default', ['m5.xlarge']), replicaSet('big', 4, { cpu: '3' }), policyCm() as KubeObject],
    [],
    { newEvaluator: () => new SwitchableEvaluator() },
  );
  const services = new ClusterServices(s.rt, { client: s.rt.cluster, clock: s.clock, namespace: NS });
  await services.policies.start();
  services.markInformersSynced();
  const ready = new CheckedSource(new RuntimeStatus(s.rt, 1), services.readiness());
  /** One loop iteration as run-loop.ts does it. */
  const tick = async (): Promise<boolean> => {
    try {
      await s.tick();
      await services.tickSucceeded();
      return true;
    } catch (e) {
      s.clock.advance(10_000);
      await services.tickFailed(e);
      return false;
    }
  };
  const annotation = async () =>
    (await s.rt.cluster.get<ConfigMap>({ kind: 'ConfigMap', name: 'kpol-policies', namespace: NS }))?.metadata
      .annotations?.['kpol.dev/status'];
  const settle = async () => {
    await services.policies.settled();
    await (s.rt.cluster as unknown as { idle(): Promise<void> }).idle();
    await services.policies.settled();
  };
  return { s, services, ready, tick, annotation, settle };
}

describe('ticks that cannot evaluate', () => {
  it('block disruption, name the policy on its ConfigMap once, turn /readyz not ready, and recover', async () => {
    const w = await world();
    expect(w.s.rt.policies.map((p) => p.name)).toEqual(['fast']);
    expect(await w.s.until(async () => (await w.s.runningPods()).length === 4, 15 * 60_000)).toBe(true);
    const nodes = (await w.s.nodes()).length;
    expect(nodes).toBeGreaterThan(1);
    expect(await w.annotation()).toBe('valid');

    // The workload goes away: every node is empty, and `fast` would delete them at once.
    await w.s.rt.cluster.patch({ kind: 'ReplicaSet', name: 'big', namespace: 'default' }, { spec: { replicas: 0 } });
    SwitchableEvaluator.broken = true;
    for (let i = 1; i < FAILED_TICKS_NOT_READY; i++) expect(await w.tick()).toBe(false);
    expect(w.ready.failures()).toEqual([]); // a few failed ticks are normal on a real cluster
    for (let i = 0; i < 10; i++) expect(await w.tick()).toBe(false);
    await w.settle();

    const failed = FAILED_TICKS_NOT_READY + 9;
    expect(w.ready.ready()).toBe(false);
    expect(w.ready.failures()).toEqual([`ticks: the last ${failed} ticks failed: Invalid time value`]);
    expect(w.s.rt.metrics.value('kpol_tick_failures_total')).toBe(failed);
    // Fail closed: no node was disrupted on a tick whose decision could not be made.
    expect((await w.s.nodes()).filter((n) => !n.metadata.deletionTimestamp)).toHaveLength(nodes);
    expect(w.s.rt.state.commands.size).toBe(0);
    // The ConfigMap names the policy at its header; one Warning Event for all those ticks.
    expect(await w.annotation()).toMatch(
      seq(
        /^configmap\/kpol-system\/kpol-policies\/p\.kpol:2:8: error KPOL4001: /,
        /policy `fast` cannot be evaluated at .*: Invalid time value$/,
      ),
    );
    const warnings = w.s.rt.events.list({ reason: 'PolicyEvaluationFailed' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      type: 'Warning',
      object: { kind: 'ConfigMap', name: 'kpol-policies', namespace: NS },
    });
    expect(warnings[0].message).toContain('policy `fast` cannot be evaluated');
    // The policy stays the one in force: it is the last good one, and nothing replaces it.
    expect(w.s.rt.policies.map((p) => p.name)).toEqual(['fast']);

    SwitchableEvaluator.broken = false;
    expect(await w.tick()).toBe(true);
    await w.settle();
    expect(w.ready.ready()).toBe(true);
    expect(await w.annotation()).toBe('valid');
    expect(w.s.rt.events.list({ reason: 'PolicyValid' })).toHaveLength(1);
    // Deciding again, `fast` deletes the empty nodes.
    expect(await w.s.until(async () => (await w.s.nodes()).length === 0, 20 * 60_000)).toBe(true);
  });

  it('a tick failing for another reason (the API server) counts for readiness but blames no policy', async () => {
    const w = await world();
    const boom = new Error('connect ECONNREFUSED');
    for (let i = 0; i < FAILED_TICKS_NOT_READY; i++) expect(await w.services.tickFailed(boom)).toBeUndefined();
    await w.settle();
    expect(w.ready.failures()).toEqual([
      `ticks: the last ${FAILED_TICKS_NOT_READY} ticks failed: connect ECONNREFUSED`,
    ]);
    expect(await w.annotation()).toBe('valid');
    expect(w.s.rt.events.list({ reason: 'PolicyEvaluationFailed' })).toEqual([]);
  });
});
