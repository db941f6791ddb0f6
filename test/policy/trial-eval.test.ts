// SPDX-License-Identifier: Apache-2.0
// A ConfigMap policy that check accepts but that cannot be evaluated is refused like one that
// fails check: not annotated `valid`, a Warning Event names the policy at its header, and the
// last good version stays in force. Evaluation is made to fail through the EvaluateAt seam (no
// policy that check accepts is known to throw any more; see src/core/policy/trial-eval.ts).
import { describe, expect, it } from 'vitest';
import type { PolicySpec } from '../../rules/model.js';
import type { ConfigMap } from '../../src/core/cluster/types.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import { FakeClock } from '../../src/core/clock.js';
import { EventLog } from '../../src/core/observe/event-log.js';
import { ConfigMapPolicies } from '../../src/core/policy/configmap-policies.js';
import { ANNOTATION_POLICY_STATUS } from '../../src/core/policy/configmap-status.js';
import type { PolicySource } from '../../src/core/policy/load.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { formatError } from '../../src/core/policy/configmap-status.js';
import { blame, trialEvaluate, unevaluableFile, type EvaluateAt } from '../../src/core/policy/trial-eval.js';
import { seq } from '../support/regex.js';

const NS = 'kpol-system';
const T0 = Date.parse('2026-11-22T10:00:00Z');
const DAY = 86_400_000;
const policy = (name: string, pool: string) => `policy ${name} for nodepool ${pool} {\n  budget 10%\n}\n`;
const cm = (name: string, data: Record<string, string>): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, labels: { 'kpol.dev/policy': 'true' } },
  data,
});

/** Evaluation of a policy named `broken` throws from `fromMs` on, as an overflowing date would. */
const failingFrom =
  (fromMs: number): EvaluateAt =>
  async (policies, atMs) => {
    if (atMs >= fromMs && policies.some((p) => p.name === 'broken')) throw new RangeError('Invalid time value');
  };

async function setup(objects: ConfigMap[], evaluateAt: EvaluateAt, files: PolicySource[] = []) {
  const clock = new FakeClock(T0);
  const cluster = new MemoryCluster(clock, objects);
  const events = new EventLog(clock);
  const store = new ConfigMapPolicies({ client: cluster, clock, namespace: NS, recorder: events, evaluateAt, files });
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      await cluster.idle();
      await store.settled();
    }
  };
  await store.start();
  await settle();
  const setData = async (name: string, data: Record<string, string>) => {
    const cur = (await cluster.get<ConfigMap>({ kind: 'ConfigMap', name, namespace: NS }))!;
    await cluster.update({ ...cur, data });
    await settle();
  };
  const annotation = async (name: string) =>
    (await cluster.get<ConfigMap>({ kind: 'ConfigMap', name, namespace: NS }))?.metadata.annotations?.[
      ANNOTATION_POLICY_STATUS
    ];
  return { store, events, cluster, settle, setData, annotation };
}

describe('trial evaluation of ConfigMap policies', () => {
  it('refuses a version whose policy cannot be evaluated a month from now; the last good one stays', async () => {
    const w = await setup([cm('team', { 'p.kpol': policy('good', 'a') })], failingFrom(T0 + 30 * DAY));
    expect(await w.annotation('team')).toBe('valid');

    await w.setData('team', { 'p.kpol': `# a comment line first\n${policy('broken', 'a')}` });
    const status = await w.annotation('team');
    expect(status).not.toBe('valid');
    // Located on the header's name, with the instant that failed and the evaluator's words.
    expect(status).toMatch(
      seq(
        /^configmap\/kpol-system\/team\/p\.kpol:2:8: error KPOL4001: /,
        /policy `broken` cannot be evaluated at 2026-12-23T10:00:00\.000Z: Invalid time value$/,
      ),
    );
    expect(w.store.policies.map((p) => p.name)).toEqual(['good']);
    const warnings = w.events.list({ reason: 'PolicyInvalid' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ type: 'Warning', object: { kind: 'ConfigMap', name: 'team' } });
    expect(warnings[0].message).toContain('policy `broken` cannot be evaluated');

    await w.setData('team', { 'p.kpol': policy('fixed', 'a') });
    expect(await w.annotation('team')).toBe('valid');
    expect(w.store.policies.map((p) => p.name)).toEqual(['fixed']);
  });

  it('a new ConfigMap that cannot be evaluated is not adopted, and another ConfigMap is not blamed', async () => {
    const w = await setup([cm('a-team', { 'p.kpol': policy('good', 'a') })], failingFrom(T0));
    expect(await w.annotation('a-team')).toBe('valid');
    await w.cluster.create(cm('b-team', { 'p.kpol': policy('broken', 'b') }));
    await w.settle();
    expect(await w.annotation('b-team')).toMatch(/^configmap\/kpol-system\/b-team\/p\.kpol:1:8: error KPOL4001: /);
    expect(await w.annotation('a-team')).toBe('valid');
    expect(w.store.policies.map((p) => p.name)).toEqual(['good']);
  });

  it('a --policy file that cannot be evaluated is not blamed on a ConfigMap', async () => {
    const files = [{ fileName: 'policies/base.kpol', text: policy('broken', 'base') }];
    const w = await setup([cm('team', { 'p.kpol': policy('good', 'a') })], failingFrom(T0 + DAY), files);
    expect(await w.annotation('team')).toBe('valid');
    expect(w.events.list({ reason: 'PolicyInvalid' })).toEqual([]);
  });

  it('a policy in force failing tick after tick is reported once per distinct error, then valid again', async () => {
    const w = await setup([cm('team', { 'p.kpol': policy('good', 'a') })], failingFrom(Infinity));
    const good = w.store.policies[0];
    for (let i = 0; i < 5; i++)
      expect(await w.store.evaluationFailed({ policy: good, atMs: T0 + i * 1000, error: 'Invalid time value' })).toBe(
        'kpol-system/team',
      );
    await w.settle();
    expect(await w.annotation('team')).toBe(
      'configmap/kpol-system/team/p.kpol:1:8: error KPOL4001: policy `good` cannot be evaluated ' +
        'at 2026-11-22T10:00:00.000Z: Invalid time value',
    );
    expect(w.events.list({ reason: 'PolicyEvaluationFailed' })).toHaveLength(1);
    await w.store.evaluationFailed({ policy: good, atMs: T0 + 9000, error: 'Maximum call stack size exceeded' });
    await w.settle();
    expect(w.events.list({ reason: 'PolicyEvaluationFailed' })).toHaveLength(2);
    expect(await w.annotation('team')).toContain('Maximum call stack size exceeded');
    // A reload for another reason (a new ConfigMap) does not turn it valid while it is the same version.
    await w.cluster.create(cm('other', { 'q.kpol': policy('other', 'b') }));
    await w.settle();
    expect(await w.annotation('other')).toBe('valid');
    expect(await w.annotation('team')).toContain('Maximum call stack size exceeded');
    // A policy from a --policy file has no ConfigMap to tell.
    expect(
      await w.store.evaluationFailed({ policy: { ...good, file: 'policies/p.kpol' }, atMs: T0, error: 'x' }),
    ).toBeUndefined();

    await w.store.evaluationSucceeded();
    await w.settle();
    expect(await w.annotation('team')).toBe('valid');
    expect(w.events.list({ reason: 'PolicyValid' })).toHaveLength(1);
  });

  it("blames nobody when the view itself cannot be evaluated (a down API server is no policy's fault)", async () => {
    const p = { name: 'good', origin: 'kpol' } as PolicySpec;
    const down: EvaluateAt = async () => {
      throw new Error('connect ECONNREFUSED');
    };
    expect(await blame([p], down, T0)).toBeUndefined();
    const failure = await trialEvaluate([p], down, T0);
    expect(failure).toMatchObject({ policy: undefined, atMs: T0, error: 'connect ECONNREFUSED' });
  });

  it('at start, a --policy file that cannot be evaluated is a located error (kpol run exits 1 with it)', async () => {
    const sources = [
      { fileName: 'policies/ok.kpol', text: policy('good', 'a') },
      { fileName: 'policies/bad.kpol', text: `\n\n  ${policy('broken', 'b')}` },
    ];
    const loaded = loadPolicies(sources);
    expect(loaded.ok).toBe(true);
    const e = await unevaluableFile(loaded.policies, sources, failingFrom(T0 + 366 * DAY), T0);
    expect(e && formatError(e)).toBe(
      'policies/bad.kpol:3:10: error KPOL4001: policy `broken` cannot be evaluated at ' +
        '2027-11-23T10:00:00.000Z: Invalid time value',
    );
    expect(await unevaluableFile(loaded.policies, sources, failingFrom(Infinity), T0)).toBeUndefined();
    const down: EvaluateAt = async () => {
      throw new Error('connect ECONNREFUSED');
    };
    expect(await unevaluableFile(loaded.policies, sources, down, T0)).toBeUndefined(); // not the files' fault
  });
});
