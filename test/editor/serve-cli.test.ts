// SPDX-License-Identifier: Apache-2.0
// `kpol serve` and `kpol run` as commands: usage errors are located and exit 2; both print the
// editor's URL with its token; the page and its assets are served, the API needs the token,
// and under `serve` the status page needs it too.
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { startServe } from './serve-process.js';

describe('kpol serve', () => {
  it.each([
    [['--port', 'x'], /--port takes a port number, not `x`/],
    [['--speed', '0'], /--speed takes a positive number, not `0`/],
    [['--start', 'yesterday'], /--start takes an RFC 3339 time, not `yesterday`/],
    [['--bogus'], /unknown option `--bogus`/],
  ])('refuses %j with a clear message and exit 2', async (args, message) => {
    const r = await runCli('serve', ...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('prints the editor URL with a fresh token, serves the page, and protects the API and status page', async () => {
    const s = await startServe();
    try {
      expect(s.output()).toContain(`kpol: access token ${s.token}`);
      expect(s.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      const page = await fetch(`${s.url}/editor/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      // Cross-origin isolated, so the page can share memory with its check worker.
      expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect(page.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
      const html = await page.text();
      const asset = /src="(\/editor\/assets\/[^"]+\.js)"/.exec(html)![1];
      const script = await fetch(`${s.url}${asset}`);
      expect(script.headers.get('content-type')).toMatch(/javascript/);
      expect(script.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
      expect((await fetch(`${s.url}/editor/../package.json`)).status).toBe(404);
      expect((await fetch(`${s.url}/api/editor/cluster`)).status).toBe(401);
      expect((await fetch(`${s.url}/api/status`)).status).toBe(401);
      expect((await fetch(`${s.url}/api/status`, { headers: { Authorization: `Bearer ${s.token}` } })).status).toBe(
        200,
      );
    } finally {
      await s.stop();
    }
  });

  it(
    'kpol run serves the editor too, with its own token and the demo policy in its ConfigMap, ' + 'as serve does',
    async () => {
      const s = await startServe([], 'run');
      try {
        expect((await fetch(`${s.url}/editor/`)).status).toBe(200);
        expect((await fetch(`${s.url}/api/editor/policies`)).status).toBe(401);
        const r = await fetch(`${s.url}/api/editor/policies`, { headers: { Authorization: `Bearer ${s.token}` } });
        const { policies, nodePools } = await r.json();
        expect(
          policies.map((p: { namespace: string; name: string; key: string; applied: boolean }) => [
            p.namespace,
            p.name,
            p.key,
            p.applied,
          ]),
        ).toEqual([['kpol-system', 'business-hours', 'business-hours.kpol', true]]);
        expect(nodePools).toEqual({ default: 'business-hours', gpu: 'business-hours' });
      } finally {
        await s.stop();
      }
    },
  );
});
