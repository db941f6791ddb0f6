// SPDX-License-Identifier: Apache-2.0
// `kpol run --kubeconfig` as a child process, as a user starts it: its JSON log lines, its status
// page address, and stopping it by PID (SIGTERM for a clean stop, SIGKILL for a crash).
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../control-plane/eventually.js';

const ROOT = new URL('../../..', import.meta.url).pathname;

export interface KpolProcess {
  readonly pid: number;
  /** http://127.0.0.1:PORT of the status page (also /metrics). */
  readonly url: string;
  /** Where its stdout and stderr are copied, to read when a test is puzzling. */
  readonly logFile: string;
  /** Every JSON line logged so far, parsed. */
  logs(): Record<string, unknown>[];
  stderr(): string;
  /** Sends the signal to the process by PID and resolves with its exit code (null when killed by a signal). */
  stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<number | null>;
  /** Counter samples of one metric from /metrics, as `{labels} value` pairs. */
  metric(name: string): Promise<{ labels: string; value: number }[]>;
}

/** Every process started here and not yet stopped: afterAll hooks stop them whatever happened. */
const running = new Set<ChildProcess>();

export async function startKpol(
  kubeconfigPath: string,
  namespace: string,
  extra: string[] = [],
  o: { standalone?: boolean } = {},
): Promise<KpolProcess> {
  // Standalone: seconds-scale machines (a replacement starts in 2 s, a deleted machine is gone in 1 s).
  const cloud = o.standalone === false ? [] : ['--launch-latency', '2s', '--termination-delay', '1s'];
  const args = [
    `${ROOT}src/edge/cli/bin.mjs`,
    'run',
    '--kubeconfig',
    kubeconfigPath,
    '--namespace',
    namespace,
    '--port',
    '0',
    ...cloud,
    ...extra,
  ];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let out = '';
  let err = '';
  const dir = join(tmpdir(), 'kpol-e2e');
  mkdirSync(dir, { recursive: true });
  const logFile = join(dir, `${namespace}-${child.pid}.log`);
  child.stdout!.on('data', (d) => {
    out += d;
    appendFileSync(logFile, d);
  });
  child.stderr!.on('data', (d) => {
    err += d;
    appendFileSync(logFile, d);
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const url = await eventually('the kpol status page address', async () => {
    if (child.exitCode !== null) throw new Error(`kpol run exited ${child.exitCode}: ${err}`);
    return /status page (http:\/\/127\.0\.0\.1:\d+)\//.exec(err)?.[1];
  });
  return {
    pid: child.pid!,
    url,
    logFile,
    logs: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    stderr: () => err,
    async stop(signal) {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
      return exited;
    },
    async metric(name) {
      const text = await (await fetch(`${url}/metrics`)).text();
      const re = new RegExp(`^${name}(\\{[^}]*\\})? ([0-9.e+-]+)$`, 'gm');
      return [...text.matchAll(re)].map((m) => ({ labels: m[1] ?? '', value: Number(m[2]) }));
    },
  };
}

/** SIGKILLs every kpol this file started and did not stop (a failed test must not leave one running). */
export function killStrays(): void {
  for (const child of running)
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
  running.clear();
}
