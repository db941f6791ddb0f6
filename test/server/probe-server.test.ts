// SPDX-License-Identifier: Apache-2.0
// The kubelet's probe server and /readyz naming the failing checks.
import { afterEach, describe, expect, it } from 'vitest';
import { CheckedSource } from '../../src/control/runtime/readiness.js';
import { startProbeServer, type ProbeServer } from '../../src/edge/server/probe-server.js';
import type { StatusView } from '../../src/control/runtime/status-source.js';
import { FAILED_TICKS_NOT_READY, TickHealth } from '../../src/control/runtime/tick-health.js';

let server: ProbeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const inner = { ready: () => true, status: async () => ({}) as StatusView };

describe('probe server', () => {
  it(
    'healthz is always ok; readyz is 503 naming the failing checks until they pass; nothing ' + 'else is served',
    async () => {
      let loaded = false;
      const source = new CheckedSource(inner, [
        { name: 'policies', failure: () => (loaded ? undefined : 'not loaded yet') },
      ]);
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
    },
  );

  it('readyz turns 503 with the reason after the last ticks failed in a row, and 200 after one succeeds', async () => {
    const ticks = new TickHealth();
    server = await startProbeServer(0, new CheckedSource(inner, [ticks.readiness()]), '127.0.0.1');
    const readyz = async () => {
      const r = await fetch(`http://127.0.0.1:${server!.port}/readyz`);
      return `${r.status} ${await r.text()}`;
    };
    for (let i = 1; i < FAILED_TICKS_NOT_READY; i++) ticks.failed('connect ECONNREFUSED');
    expect(await readyz()).toBe('200 ok'); // a few failed ticks are normal on a real cluster
    ticks.failed('Invalid time value');
    const reason = `ticks: the last ${FAILED_TICKS_NOT_READY} ticks failed: Invalid time value`;
    expect(await readyz()).toBe(`503 not ready\n${reason}`);
    ticks.succeeded();
    expect(await readyz()).toBe('200 ok');
    ticks.failed('Invalid time value'); // counting starts again after a success
    expect(await readyz()).toBe('200 ok');
  });
});
