// SPDX-License-Identifier: Apache-2.0
// A process that dies is reported with its name, how it ended, its log path and the log's tail;
// stopping keeps the logs when asked to (failed start-ups) and removes them otherwise.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually } from './control-plane/eventually.js';
import { ProcessSet } from './control-plane/processes.js';

function fresh(): ProcessSet {
  const state = mkdtempSync(join(tmpdir(), 'kpol-k8s-procs-'));
  mkdirSync(join(state, 'logs'));
  return new ProcessSet(state, join(state, 'logs'));
}

describe('ProcessSet', () => {
  it('names a dead process, its exit code and its log, and keeps the log on request', async () => {
    const procs = fresh();
    procs.start('doomed', 'sh', ['-c', 'echo "listen tcp 127.0.0.1:1: bind: address already in use"; exit 3']);
    const error = await eventually('the process to be reported dead', async () => {
      try {
        procs.assertRunning();
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    });
    expect(error).toContain('doomed exited (exit code 3)');
    expect(error).toContain(join(procs.logDir, 'doomed.log'));
    expect(error).toContain('bind: address already in use');
    await procs.stopAll({ keepState: true });
    expect(existsSync(join(procs.logDir, 'doomed.log'))).toBe(true);
    rmSync(procs.stateDir, { recursive: true, force: true });
  });

  it('stops a process that ignores SIGTERM with SIGKILL and removes the state dir', async () => {
    const procs = fresh();
    const p = procs.start('stubborn', 'sh', ['-c', 'trap "" TERM; echo "trap $((1 + 1))"; while :; do sleep 1; done']);
    // Signal only once the trap is set, or SIGTERM would end it before it could ignore it. (The
    // log's first line is the command itself; only the shell's own output says `trap 2`.)
    await eventually('the trap to be set', async () =>
      readFileSync(p.logPath, 'utf8').includes('trap 2') ? true : undefined,
    );
    procs.assertRunning();
    await procs.stopAll({ graceMs: 300 });
    expect(p.exited).toBe('SIGKILL');
    expect(existsSync(procs.stateDir)).toBe(false);
  });
});
