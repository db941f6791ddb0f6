// SPDX-License-Identifier: Apache-2.0
// The editor API in-process, on the real status server and the embedded cluster: the token
// and Origin checks on every write, saving to the ConfigMap with resourceVersion conflicts, a
// policy with errors refused (and never applied), and the controller reloading a saved policy.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import { LABEL_POLICY_CONFIGMAP, type ConfigMap } from '../../src/core/cluster/types.js';
import { ConfigMapPolicies } from '../../src/core/policy/configmap-policies.js';
import { ANNOTATION_POLICY_STATUS } from '../../src/core/policy/configmap-status.js';
import { Runtime } from '../../src/control/runtime/runtime.js';
import { RuntimeStatus } from '../../src/control/runtime/status.js';
import { editorRoutes } from '../../src/edge/server/editor-routes.js';
import { startStatusServer, type StatusServer } from '../../src/edge/server/status-server.js';
import { simulationObjects } from '../../src/edge/simulate/cluster-objects.js';

const DEMO = new URL('../../rules/examples/demo/cluster.yaml', import.meta.url).pathname;
const POLICY = readFileSync(new URL('../../rules/examples/business-hours.kpol', import.meta.url), 'utf8');
const TOKEN = 'test-token-123';
const AT = { namespace: 'kpol-system', name: 'business-hours', key: 'business-hours.kpol' };

let server: StatusServer;
let rt: Runtime;
let reload: ConfigMapPolicies;

/** Waits for the ConfigMap watch, the reload, and the reload's own annotation write. */
async function settle(): Promise<void> {
  for (let i = 0; i < 2; i++) {
    await (rt.cluster as MemoryCluster).idle();
    await reload.settled();
  }
}

function call(
  method: string,
  path: string,
  opts: { body?: unknown; token?: string | null; origin?: string } = {},
): Promise<{ status: number; json: any }> {
  const u = new URL(path, server.url);
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const token = opts.token === undefined ? TOKEN : opts.token;
  return new Promise((resolve, reject) => {
    const req = request(
      u,
      {
        method,
        headers: {
          ...(token !== null && { Authorization: `Bearer ${token}` }),
          ...(body !== undefined && { 'Content-Type': 'application/json' }),
          ...(opts.origin !== undefined && { Origin: opts.origin }),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  const clock = new FakeClock(Date.parse('2026-11-23T12:00:00Z'));
  const cm: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: AT.name, namespace: AT.namespace, labels: { [LABEL_POLICY_CONFIGMAP]: 'true' } },
    data: { [AT.key]: POLICY },
  };
  const objects = [...simulationObjects(readFileSync(DEMO, 'utf8'), DEMO).objects, cm];
  rt = new Runtime({ clock, objects, policies: [] });
  // The loader `kpol serve` runs, on the same embedded cluster.
  reload = new ConfigMapPolicies({
    client: rt.cluster,
    clock,
    namespace: AT.namespace,
    recorder: rt.events,
    onChange: (p) => {
      rt.policies = p;
    },
  });
  await reload.start();
  server = await startStatusServer({
    port: 0,
    source: new RuntimeStatus(rt, 1),
    metrics: rt.metrics,
    routes: editorRoutes({ client: rt.cluster, token: TOKEN, sources: reload, now: () => clock.now() }),
  });
});
afterAll(async () => {
  reload.stop();
  await server.close();
});

describe('editor API', () => {
  it('refuses every route without the token, and a write with the wrong token', async () => {
    expect((await call('GET', '/api/editor/policies', { token: null })).status).toBe(401);
    expect((await call('GET', '/api/editor/cluster', { token: null })).status).toBe(401);
    const put = await call('PUT', '/api/editor/policies', { token: null, body: { ...AT, text: POLICY } });
    expect(put.status).toBe(401);
    expect((await call('PUT', '/api/editor/policies', { token: 'wrong', body: { ...AT, text: POLICY } })).status).toBe(
      401,
    );
  });

  it('refuses a write from another origin even with the token, and accepts its own', async () => {
    const { json } = await call('GET', '/api/editor/policies');
    const rv = json.policies[0].resourceVersion;
    const evil = await call('PUT', '/api/editor/policies', {
      origin: 'http://evil.example',
      body: { ...AT, text: POLICY, resourceVersion: rv },
    });
    expect(evil.status).toBe(403);
    expect(evil.json.error).toMatch(/origin `http:\/\/evil.example`/);
    const own = await call('PUT', '/api/editor/policies', {
      origin: server.url,
      body: { ...AT, text: POLICY, resourceVersion: rv },
    });
    expect(own.status).toBe(200);
  });

  it(
    'lists the policy ConfigMaps with their version and whether they are applied, and which ' +
      'policy governs each NodePool',
    async () => {
      const { status, json } = await call('GET', '/api/editor/policies');
      expect(status).toBe(200);
      expect(json.policies).toEqual([
        expect.objectContaining({ ...AT, text: POLICY, applied: true, resourceVersion: expect.any(String) }),
      ]);
      // The editor starts a new policy on a NodePool no other policy governs (here: none is left).
      expect(json.nodePools).toEqual({ default: 'business-hours', gpu: 'business-hours' });
    },
  );

  it(
    'saves with the loaded resourceVersion, then refuses the stale version with a conflict ' +
      'carrying the current text',
    async () => {
      const rv = (await call('GET', '/api/editor/policies')).json.policies[0].resourceVersion;
      const edited = POLICY.replace('policy business-hours', 'policy renamed-hours');
      const saved = await call('PUT', '/api/editor/policies', { body: { ...AT, text: edited, resourceVersion: rv } });
      expect(saved.status).toBe(200);
      expect(saved.json.saved.resourceVersion).not.toBe(rv);
      const cm = await rt.cluster.get<ConfigMap>({ kind: 'ConfigMap', ...AT });
      expect(cm!.data![AT.key]).toBe(edited);

      const stale = await call('PUT', '/api/editor/policies', { body: { ...AT, text: POLICY, resourceVersion: rv } });
      expect(stale.status).toBe(409);
      expect(stale.json.error).toMatch(/^conflict: ConfigMap kpol-system\/business-hours changed since you loaded it/);
      expect(stale.json.current).toEqual(
        expect.objectContaining({ text: edited, resourceVersion: saved.json.saved.resourceVersion }),
      );
    },
  );

  it('the controller picks up a saved policy', async () => {
    await settle();
    expect(rt.policies.map((p) => p.name)).toEqual(['renamed-hours']);
    expect((await call('GET', '/api/editor/policies')).json.policies[0]).toEqual(
      expect.objectContaining({ applied: true, status: 'valid' }),
    );
  });

  it(
    'a newer version that left the key’s text alone (an annotation) is no conflict when the ' +
      'save names its base text',
    async () => {
      const base = (await call('GET', '/api/editor/policies')).json.policies[0];
      const cm = await rt.cluster.get<ConfigMap>({ kind: 'ConfigMap', ...AT });
      await rt.cluster.update({
        ...cm!,
        metadata: { ...cm!.metadata, annotations: { ...cm!.metadata.annotations, 'example.com/owner': 'team-a' } },
      });
      await settle();
      const edited = base.text.replace('budget 5', 'budget 4');
      const wrongBase = await call('PUT', '/api/editor/policies', {
        body: { ...AT, text: edited, resourceVersion: base.resourceVersion, baseText: 'something else' },
      });
      expect(wrongBase.status).toBe(409);
      const saved = await call('PUT', '/api/editor/policies', {
        body: { ...AT, text: edited, resourceVersion: base.resourceVersion, baseText: base.text },
      });
      expect(saved.status).toBe(200);
      const after = await rt.cluster.get<ConfigMap>({ kind: 'ConfigMap', ...AT });
      expect(after!.data![AT.key]).toBe(edited);
      expect(after!.metadata.annotations!['example.com/owner']).toBe('team-a');
      await settle();
      expect(rt.policies[0].budgets.map((b) => b.nodes)).toContainEqual({ kind: 'count', value: 4 });
    },
  );

  it('refuses a save outside the controller’s namespace, where it would never be loaded', async () => {
    const r = await call('PUT', '/api/editor/policies', { body: { ...AT, namespace: 'default', text: POLICY } });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(
      /namespace `default` is not the controller's: it loads policy ConfigMaps from `kpol-system` only/,
    );
    expect(await rt.cluster.get<ConfigMap>({ kind: 'ConfigMap', ...AT, namespace: 'default' })).toBeUndefined();
  });

  it(
    'refuses a policy with errors (422, with located diagnostics) and leaves the ConfigMap and ' +
      'the controller alone',
    async () => {
      const before = await rt.cluster.get<ConfigMap>({ kind: 'ConfigMap', ...AT });
      const r = await call('PUT', '/api/editor/policies', {
        body: {
          ...AT,
          text: 'policy x for nodepool default {\n  budget 1 for Drifed\n}\n',
          resourceVersion: before!.metadata.resourceVersion,
        },
      });
      expect(r.status).toBe(422);
      expect(r.json.diagnostics[0]).toEqual(
        expect.objectContaining({
          code: expect.stringMatching(/^KPOL/),
          range: expect.objectContaining({ start: expect.objectContaining({ line: 1 }) }),
        }),
      );
      const after = await rt.cluster.get<ConfigMap>({ kind: 'ConfigMap', ...AT });
      expect(after!.metadata.resourceVersion).toBe(before!.metadata.resourceVersion);
      expect(rt.policies.map((p) => p.name)).toEqual(['renamed-hours']);
    },
  );

  it(
    'keeps the last good policies when a ConfigMap written behind its back has errors, and ' +
      'shows why as a real cluster does',
    async () => {
      const cm = await rt.cluster.get<ConfigMap>({ kind: 'ConfigMap', ...AT });
      await rt.cluster.update({ ...cm!, data: { [AT.key]: 'policy broken for nodepool default { budget }' } });
      await settle();
      expect(rt.policies.map((p) => p.name)).toEqual(['renamed-hours']);
      const listed = (await call('GET', '/api/editor/policies')).json.policies[0];
      expect(listed.applied).toBe(false);
      expect(listed.status).toMatch(/^configmap\/kpol-system\/business-hours\/business-hours\.kpol:1:\d+: error KPOL1/);
      const annotated = await rt.cluster.get<ConfigMap>({ kind: 'ConfigMap', ...AT });
      expect(annotated!.metadata.annotations![ANNOTATION_POLICY_STATUS]).toBe(listed.status);
      expect(rt.events.list({ reason: 'PolicyInvalid' })).toEqual([
        expect.objectContaining({
          type: 'Warning',
          object: expect.objectContaining({ name: AT.name, namespace: AT.namespace }),
        }),
      ]);
    },
  );

  it('rejects bad addresses and bodies with a clear message', async () => {
    expect(
      (await call('PUT', '/api/editor/policies', { body: { ...AT, key: 'x.yaml', text: POLICY } })).json.error,
    ).toMatch(/key `x.yaml` must be a ConfigMap key ending in .kpol/);
    expect((await call('PUT', '/api/editor/policies', { body: { text: 1 } })).status).toBe(400);
  });
});

describe('malformed requests (issue 13, defects 5 and 6)', () => {
  it.each(['/editor/%zz', '/editor/%', '/editor/%E0%A4%A'])('%s: 400, not an internal error', async (path) => {
    const res = await fetch(`${server.url}${path}`);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('the path is not valid percent-encoding');
  });

  it('a body over 1 MiB: 413 and the connection closed', async () => {
    const res = await fetch(`${server.url}/api/editor/policies`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: 'x'.repeat(2 << 20),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
  });
});

describe('editor API: simulate 24 h', () => {
  it('runs the edited text through the real runtime for a day, and refuses text with errors', async () => {
    const ok = await call('POST', '/api/editor/simulate', { body: { ...AT, text: POLICY } });
    expect(ok.status).toBe(200);
    expect(ok.json.to - ok.json.from).toBe(24 * 3600_000);
    expect(ok.json.samples.length).toBe(48);
    expect(ok.json.summary.endCostPerHour).toBeGreaterThan(0); // the demo's pods got nodes
    const bad = await call('POST', '/api/editor/simulate', {
      body: { ...AT, text: 'policy x for nodepool default { budget }' },
    });
    expect(bad.status).toBe(422);
    expect((await call('POST', '/api/editor/simulate', { token: null, body: { ...AT, text: POLICY } })).status).toBe(
      401,
    );
  });
});
