// SPDX-License-Identifier: Apache-2.0
// The kubelet's probe server and /readyz naming the failing checks.
import { afterEach, describe, expect, it } from 'vitest';
import { CheckedSource } from '../../src/control/runtime/readiness.js';
import { startProbeServer, type ProbeServer } from '../../src/edge/server/probe-server.js';
import type { StatusView } from '../../src/control/runtime/status-source.js';

let server: ProbeServer | undefined;
afterEach(async () => { await server?.close(); server = undefined; });

const inner = { ready: () => true, status: async () => ({}) as StatusView };

describe('probe server', () => {
  it('healthz is always ok; readyz is 503 naming the failing checks until they pass; nothing else is served', async () => {
    let loaded = false;
    const source = new CheckedSource(inner, [{ name: 'policies', failure: () => (loaded ? undefined : 'not loaded yet') }]);
    server = await startProbeServer(0, source, '127.0.0.1');
    const url = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const before = await fetch(`${url}/readyz`);
    expect(before.status).toBe(503);
    expect(await before.text()).toBe('not ready\npolicies: not loaded yet');
    loaded = true;
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect((await fetch(`${url}/api/status`)).status).toBe(404);
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
  });
});
