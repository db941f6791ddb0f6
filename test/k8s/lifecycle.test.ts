// SPDX-License-Identifier: Apache-2.0
// The harness leaves nothing behind: stop() ends every process and removes the state dir, and
// so does the reaper when the process that started the control plane is killed outright.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually } from './control-plane/eventually.js';
import { startControlPlane } from './control-plane/start-control-plane.js';

const root = new URL('../..', import.meta.url).pathname;

/** True while `pid` is a live process; a zombie (exited, not yet reaped) counts as gone. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('control-plane lifecycle', () => {
  it('stop() kills every process and removes the state dir', async () => {
    const cp = await startControlPlane();
    const pids = Object.values(cp.pids);
    expect(Object.keys(cp.pids).sort()).toEqual([
      'etcd',
      'kube-apiserver',
      'kube-controller-manager',
      'kube-scheduler',
    ]);
    expect(pids.every(alive)).toBe(true);
    expect(existsSync(cp.stateDir)).toBe(true);
    await cp.stop();
    expect(pids.filter(alive)).toEqual([]);
    expect(existsSync(cp.stateDir)).toBe(false);
  });

  it('a test run killed with SIGKILL leaves no process and no state dir behind', async () => {
    // node itself with tsx's loader, not the tsx CLI: that would be a wrapper process, and
    // SIGKILL on a wrapper leaves its child running.
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test/k8s/fixtures/hold-control-plane.ts')], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    const started = await eventually(
      'the child to report its control plane',
      async () => {
        if (child.exitCode !== null) throw new Error(`child exited ${child.exitCode}: ${err}`);
        const line = out.split('\n').find((l) => l.startsWith('{'));
        return line ? (JSON.parse(line) as { pids: Record<string, number>; stateDir: string }) : undefined;
      },
      120_000,
    );
    const pids = Object.values(started.pids);
    expect(pids).toHaveLength(4);
    expect(pids.every(alive)).toBe(true);

    child.kill('SIGKILL');
    await eventually('every control-plane process to end', async () => (pids.some(alive) ? undefined : true), 30_000);
    await eventually(
      'the state dir to be removed',
      async () => (existsSync(started.stateDir) ? undefined : true),
      30_000,
    );
  });
});
