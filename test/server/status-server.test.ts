// SPDX-License-Identifier: Apache-2.0
import { request } from 'node:http';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createKarpenterMetrics } from '../../src/core/observe/karpenter-metrics.js';
import { startStatusServer, type StatusServer, type StatusServerOptions } from '../../src/edge/server/status-server.js';
import type { StatusSource, StatusView } from '../../src/control/runtime/status-source.js';
import { tagBalanceErrors } from '../simulate/html-check.js';
import { seq } from '../support/regex.js';

const VIEW: StatusView = {
  at: '2026-01-05T09:00:00.000Z',
  clockSpeed: 60,
  nodePools: {
    web: {
      policy: 'business-hours.kpol',
      nodes: 5,
      disrupting: 1,
      allowed: { Empty: 1, Drifted: 0, Underutilized: null },
    },
  },
  nodes: [
    { name: 'web-1', nodePool: 'web', candidate: true, reasons: ['Empty'], blocked: [] },
    {
      name: 'web-2',
      nodePool: 'web',
      candidate: false,
      reasons: [],
      blocked: [{ code: 'pdb', message: 'pdb `<script>x</script>` prevents pod evictions' }],
    },
  ],
  decisions: [
    { at: '2026-01-05T08:59:00.000Z', method: 'Emptiness', reason: 'Empty', nodes: ['web-3'], decision: 'delete' },
  ],
  events: [
    {
      at: '2026-01-05T08:59:00.000Z',
      type: 'Warning',
      reason: 'FailedDraining',
      message: 'Failed to drain node',
      object: { kind: 'Node', name: 'web-4' },
    },
  ],
};

function fakeSource(): StatusSource & { isReady: boolean } {
  return {
    isReady: false,
    ready() {
      return this.isReady;
    },
    status: async () => structuredClone(VIEW),
  };
}

const servers: StatusServer[] = [];
afterEach(async () => {
  while (servers.length) await servers.pop()!.close();
});

async function start(extra: Partial<StatusServerOptions> = {}) {
  const source = fakeSource();
  const metrics = createKarpenterMetrics();
  metrics.set('karpenter_nodepools_allowed_disruptions', { nodepool: 'web', reason: 'Empty' }, 1);
  const server = await startStatusServer({ port: 0, host: '127.0.0.1', source, metrics, ...extra });
  servers.push(server);
  return { server, source };
}

/** A raw request, for headers fetch will not let us set. */
function raw(url: string, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('status server', () => {
  it('listens on 127.0.0.1 with a picked port', async () => {
    const { server } = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('refuses any other host', async () => {
    const source = fakeSource();
    await expect(
      startStatusServer({ port: 0, host: '0.0.0.0' as '127.0.0.1', source, metrics: createKarpenterMetrics() }),
    ).rejects.toThrow(/127\.0\.0\.1 only/);
  });

  it('GET /healthz is ok', async () => {
    const { server } = await start();
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('ok');
  });

  it('GET /readyz is 503 until the source is ready', async () => {
    const { server, source } = await start();
    const before = await fetch(`${server.url}/readyz`);
    expect(before.status).toBe(503);
    await before.text();
    source.isReady = true;
    const after = await fetch(`${server.url}/readyz`);
    expect(after.status).toBe(200);
    expect(await after.text()).toBe('ok');
  });

  it('GET /metrics serves the text format 0.0.4', async () => {
    const { server } = await start();
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const body = await res.text();
    expect(body).toContain('# TYPE karpenter_nodepools_allowed_disruptions gauge\n');
    expect(body).toContain('karpenter_nodepools_allowed_disruptions{nodepool="web",reason="Empty"} 1\n');
  });

  it('GET /api/status returns the view as JSON', async () => {
    const { server } = await start();
    const res = await fetch(`${server.url}/api/status`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual(VIEW);
  });

  it('GET / renders the status page: refresh, pools, why-not, decisions, events, escaped', async () => {
    const { server } = await start();
    const res = await fetch(`${server.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(tagBalanceErrors(html)).toEqual([]);
    expect(html).toContain('<meta http-equiv="refresh" content="5">');
    expect(html).toMatch(
      seq(
        /<td>web<\/td><td><code>business-hours\.kpol<\/code><\/td><td class="num">5<\/td><td class="num">1<\/td>/,
        /<td class="num">1<\/td><td class="num">0<\/td><td class="num">unlimited<\/td>/,
      ),
    );
    expect(html).toContain('pdb `&lt;script&gt;x&lt;/script&gt;` prevents pod evictions');
    expect(html).not.toContain('<script');
    expect(html).toContain('Emptiness');
    expect(html).toContain('FailedDraining');
    expect(html).toContain('clock ×60');
  });

  it('GET / shows an event repeated every minute once, with its count and first and last time', async () => {
    const blocked = (minute: number, name = 'web-4') => ({
      at: `2026-01-05T08:${String(minute).padStart(2, '0')}:00.000Z`,
      type: 'Normal' as const,
      reason: 'DisruptionBlocked',
      message: 'Node is deleting or marked for deletion',
      object: { kind: 'Node', name },
    });
    const view: StatusView = {
      ...VIEW,
      events: [blocked(1), blocked(2), blocked(2, 'web-5'), blocked(3), ...VIEW.events],
    };
    const { server } = await start({ source: { ready: () => true, status: async () => structuredClone(view) } });
    const html = await (await fetch(`${server.url}/`)).text();
    expect(tagBalanceErrors(html)).toEqual([]);
    const rows = /<table class="events">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/
      .exec(html)![1]
      .split('</tr>')
      .filter(Boolean);
    expect(rows).toHaveLength(3);
    // Newest first: FailedDraining (08:59), then web-4 ×3 (last 08:03, first 08:01), then web-5 once.
    expect(rows[0]).toContain('FailedDraining');
    expect(rows[1]).toContain(
      '<td class="nowrap">2026-01-05T08:03:00.000Z</td><td class="num">3</td><td ' +
        'class="nowrap">2026-01-05T08:01:00.000Z</td>',
    );
    expect(rows[1]).toContain('Node/web-4');
    expect(rows[2]).toContain('<td class="num">1</td>');
    expect(rows[2]).toContain('Node/web-5');
  });

  it.each(['/nope', '/metrics/', '/api', '/favicon.ico'])('GET %s is 404', async (path) => {
    const { server } = await start();
    const res = await fetch(`${server.url}${path}`);
    expect(res.status).toBe(404);
    await res.text();
  });

  it('POST is 405 with Allow', async () => {
    const { server } = await start();
    const res = await fetch(`${server.url}/metrics`, { method: 'POST', body: 'x' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    await res.text();
  });

  it('HEAD returns headers without a body', async () => {
    const { server } = await start();
    const res = await fetch(`${server.url}/metrics`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  it('with a token, status and metrics need it; probes do not', async () => {
    const { server, source } = await start({ token: 's3cret' });
    source.isReady = true;
    for (const path of ['/', '/api/status', '/metrics']) {
      const denied = await fetch(`${server.url}${path}`, { headers: { authorization: 'Bearer wrong' } });
      expect(denied.status).toBe(401);
      await denied.text();
      const ok = await fetch(`${server.url}${path}`, { headers: { authorization: 'Bearer s3cret' } });
      expect(ok.status).toBe(200);
      await ok.text();
    }
    const viaQuery = await fetch(`${server.url}/?token=s3cret`);
    expect(viaQuery.status).toBe(200);
    await viaQuery.text();
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('rejects a foreign Host header (DNS rebinding)', async () => {
    const { server } = await start();
    const port = new URL(server.url).port;
    expect(await raw(server.url, '/api/status', { host: 'evil.example:80' })).toBe(421);
    expect(await raw(server.url, '/api/status', { host: `localhost:${port}` })).toBe(200);
  });

  it('answers 500 when the source fails', async () => {
    const source: StatusSource = { ready: () => true, status: async () => Promise.reject(new Error('boom')) };
    const server = await startStatusServer({ port: 0, source, metrics: createKarpenterMetrics() });
    servers.push(server);
    const res = await fetch(`${server.url}/api/status`);
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('boom');
  });

  it('close() frees the port', async () => {
    const { server } = await start();
    const port = Number(new URL(server.url).port);
    await (await fetch(`${server.url}/healthz`)).text(); // leaves a keep-alive connection open
    await servers.pop()!.close();
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    const probe = createServer();
    await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(port, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  });
});
