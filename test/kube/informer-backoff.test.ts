// SPDX-License-Identifier: Apache-2.0
// An informer whose API server does not answer keeps retrying with growing delays and never
// throws; stop() ends it. (The behaviour against a live server is in test/k8s/adapter/.)
import { createServer } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { Informer } from '../../src/edge/kube/informer.js';
import { RESOURCES } from '../../src/edge/kube/api-resources.js';
import { RestClient } from '../../src/edge/kube/rest.js';
import { createLogger } from '../../src/core/observe/logger.js';

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function kubeConfigFor(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

describe('informer against an unreachable server', () => {
  it('backs off exponentially (with jitter) and logs each failure', async () => {
    const port = await closedPort();
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ clock: new FakeClock(0), sink: (l) => lines.push(JSON.parse(l)), level: 'debug' });
    const inf = new Informer(new RestClient(kubeConfigFor(`http://127.0.0.1:${port}`)), RESOURCES.Pod, {
      backoffMs: 5,
      maxBackoffMs: 80,
      logger,
    });
    void inf.start();
    while (lines.length < 7) await new Promise((r) => setTimeout(r, 5));
    inf.stop();
    const failures = lines.filter((l) => l.msg === 'watch failed; retrying');
    expect(failures.length).toBeGreaterThanOrEqual(7);
    const delays = failures.map((l) => l.retryInMs as number);
    // 5, 10, 20, 40, 80, 80, 80 ms, each ±20 %: strictly growing until the cap, then capped.
    for (let i = 1; i < 5; i++) expect(delays[i]).toBeGreaterThan(delays[i - 1]);
    for (const d of delays.slice(4)) expect(d).toBeLessThanOrEqual(96);
    expect(failures[0].error).toMatch(
      new RegExp(`GET /api/v1/pods: cannot reach the API server at http://127.0.0.1:${port}`),
    );
    expect(failures[0].kind).toBe('Pod');
  });
});
