// SPDX-License-Identifier: Apache-2.0
// The README's first quick-start command: `npm start` brings up the embedded default and the
// status page answers on 127.0.0.1.
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;

describe('npm start (kpol run on the embedded simulated cluster)', () => {
  const child = spawn('npm', ['start', '--silent', '--', '--port', '0', '--speed', '120'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  afterAll(() => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      /* already gone */
    }
  });

  const url = async (): Promise<string> => {
    for (let i = 0; i < 600; i++) {
      const m = /status page (http:\/\/127\.0\.0\.1:\d+)\//.exec(stderr);
      if (m) return m[1];
      if (child.exitCode !== null) throw new Error(`kpol run exited ${child.exitCode}: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no status URL after 60 s: ${stderr}`);
  };

  it('serves /healthz, /readyz, the status page, /api/status and /metrics on 127.0.0.1', async () => {
    const base = await url();
    expect(await (await fetch(`${base}/healthz`)).text()).toBe('ok');
    let status: { nodePools: Record<string, { nodes: number }> } | undefined;
    for (let i = 0; i < 300; i++) {
      const r = await fetch(`${base}/readyz`);
      if (r.status === 200) {
        status = await (await fetch(`${base}/api/status`)).json();
        if (Object.values(status!.nodePools).some((p) => p.nodes > 0)) break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(Object.keys(status!.nodePools).sort()).toEqual(['default', 'gpu']);
    expect(Object.values(status!.nodePools).some((p) => p.nodes > 0)).toBe(true); // the simulated cloud launched nodes
    const page = await (await fetch(`${base}/`)).text();
    expect(page).toContain('default');
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/karpenter_nodepools_allowed_disruptions\{nodepool="default",reason="Empty"\} \d+/);
    // Every stdout line is one JSON log object.
    for (const line of stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{')))
      expect(() => JSON.parse(line)).not.toThrow();
    expect(stdout).toContain('"msg":"started"');
  }, 90_000);
});
