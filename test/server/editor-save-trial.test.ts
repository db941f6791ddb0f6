// SPDX-License-Identifier: Apache-2.0
// The editor's save tries the edited policy over the cluster as the controller would: one that
// checks but cannot be evaluated is refused with 422 and a located KPOL4001 diagnostic, and the
// ConfigMap and the policies in force are left alone; a policy of another ConfigMap failing is
// not the edit's fault. Evaluation fails through the EvaluateAt seam (src/core/policy/trial-eval.ts).
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { LABEL_POLICY_CONFIGMAP, type ConfigMap, type KubeObject } from '../../src/core/cluster/types.js';
import type { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import { ConfigMapPolicies } from '../../src/core/policy/configmap-policies.js';
import type { EvaluateAt } from '../../src/core/policy/trial-eval.js';
import { Runtime } from '../../src/control/runtime/runtime.js';
import { RuntimeStatus } from '../../src/control/runtime/status.js';
import { editorRoutes } from '../../src/edge/server/editor-routes.js';
import { startStatusServer, type StatusServer } from '../../src/edge/server/status-server.js';
import { makeNodePool } from '../support/cluster-builder.js';

const TOKEN = 'test-token-456';
const AT = { namespace: 'kpol-system', name: 'team', key: 'p.kpol' };
const GOOD = 'policy good for nodepool default {\n  budget 2\n}\n';

/** Policies named in `failing` throw, whatever the instant, as an overflowing date would. */
const failing = new Set(['broken']);
const evaluateAt: EvaluateAt = async (policies) => {
  if (policies.some((p) => failing.has(p.name))) throw new RangeError('Invalid time value');
};

let server: StatusServer;
let rt: Runtime;
let loader: ConfigMapPolicies;

function put(body: unknown): Promise<{ status: number; json: any }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL('/api/editor/policies', server.url),
      { method: 'PUT', headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' } },
      (res) => {
        let out = '';
        res.on('data', (d) => (out += d));
        res.on('end', () => resolve({ status: res.statusCode!, json: out ? JSON.parse(out) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

beforeAll(async () => {
  const clock = new FakeClock(Date.parse('2026-11-23T12:00:00Z'));
  const cm: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: AT.name, namespace: AT.namespace, labels: { [LABEL_POLICY_CONFIGMAP]: 'true' } },
    data: { [AT.key]: GOOD },
  };
  rt = new Runtime({
    clock,
    objects: [makeNodePool('default') as KubeObject, makeNodePool('other') as KubeObject, cm],
    policies: [],
  });
  loader = new ConfigMapPolicies({
    client: rt.cluster,
    clock,
    namespace: AT.namespace,
    recorder: rt.events,
    evaluateAt,
    onChange: (p) => {
      rt.policies = p;
    },
  });
  await loader.start();
  server = await startStatusServer({
    port: 0,
    source: new RuntimeStatus(rt, 1),
    metrics: rt.metrics,
    routes: editorRoutes({ client: rt.cluster, token: TOKEN, sources: loader, now: () => clock.now(), evaluateAt }),
  });
});
afterAll(async () => {
  loader.stop();
  await server.close();
});

describe('editor save', () => {
  it('refuses a policy that cannot be evaluated (422, KPOL4001 on its name); the ConfigMap is left', async () => {
    const before = (await rt.cluster.get<ConfigMap>({ kind: 'ConfigMap', ...AT }))!;
    const r = await put({
      ...AT,
      text: '# edited\npolicy broken for nodepool default {\n  budget 1\n}\n',
      resourceVersion: before.metadata.resourceVersion,
    });
    expect(r.status).toBe(422);
    expect(r.json.error).toMatch(/cannot be evaluated/);
    expect(r.json.diagnostics).toEqual([
      expect.objectContaining({
        file: 'configmap/kpol-system/team/p.kpol',
        code: 'KPOL4001',
        range: expect.objectContaining({ start: expect.objectContaining({ line: 1, character: 7 }) }),
      }),
    ]);
    expect(r.json.diagnostics[0].message).toMatch(/^policy `broken` cannot be evaluated at .*: Invalid time value$/);
    const after = (await rt.cluster.get<ConfigMap>({ kind: 'ConfigMap', ...AT }))!;
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(rt.policies.map((p) => p.name)).toEqual(['good']);
  });

  it('saves an edit that evaluates while a policy of another ConfigMap in force does not', async () => {
    await (rt.cluster as MemoryCluster).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'other', namespace: AT.namespace, labels: { [LABEL_POLICY_CONFIGMAP]: 'true' } },
      data: { 'q.kpol': 'policy flaky for nodepool other {\n  budget 1\n}\n' },
    } as ConfigMap);
    await (rt.cluster as MemoryCluster).idle();
    await loader.settled();
    expect(rt.policies.map((p) => p.name).sort()).toEqual(['flaky', 'good']);
    failing.add('flaky'); // it stops evaluating later: not the edit's fault
    const before = (await rt.cluster.get<ConfigMap>({ kind: 'ConfigMap', ...AT }))!;
    const r = await put({
      ...AT,
      text: 'policy good for nodepool default {\n  budget 3\n}\n',
      resourceVersion: before.metadata.resourceVersion,
    });
    expect(r.status).toBe(200);
  });
});
