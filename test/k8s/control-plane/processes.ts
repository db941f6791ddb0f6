// SPDX-License-Identifier: Apache-2.0
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** One started server: its name, PID (which is also its process-group id) and log file. */
export interface Started {
  name: string;
  pid: number;
  logPath: string;
  child: ChildProcess;
  /** Set once the process has exited, with its exit code or signal. */
  exited?: string;
}

// Kills every recorded process group once the Node process that started them is gone, however
// it went (Ctrl-C, SIGKILL, a crash that skipped 'exit' handlers), then removes the state dir.
// It runs in its own session so the terminal's Ctrl-C does not kill it first. Plain POSIX sh
// (dash here): `kill -SIG -PGID`, since dash's kill does not accept `--`.
const REAPER = `
parent="$1"; state="$2"
while kill -0 "$parent" 2>/dev/null; do sleep 1; done
if [ -f "$state/pids" ]; then
  for pid in $(cat "$state/pids"); do kill -TERM "-$pid" 2>/dev/null; done
  sleep 2
  for pid in $(cat "$state/pids"); do kill -KILL "-$pid" 2>/dev/null; done
fi
rm -rf "$state"
`;

/**
 * The processes of one control plane. Each runs in its own process group with output to
 * `<state>/logs/<name>.log`; `stopAll` kills each group by PID and removes the state dir, and
 * a detached reaper does the same if this Node process dies without calling it.
 */
export class ProcessSet {
  readonly started: Started[] = [];
  private readonly pidFile: string;
  private readonly reaperPid: number | undefined;
  private readonly onExit = () => this.killAllSync('SIGKILL');
  private stopped = false;

  constructor(
    readonly stateDir: string,
    readonly logDir: string,
  ) {
    this.pidFile = join(stateDir, 'pids');
    appendFileSync(this.pidFile, '');
    const reaper = spawn('sh', ['-c', REAPER, 'kpol-k8s-reaper', String(process.pid), stateDir], {
      detached: true,
      stdio: 'ignore',
    });
    reaper.unref();
    this.reaperPid = reaper.pid;
    process.once('exit', this.onExit);
  }

  /** Starts `command`; `env` is added to this process's environment (Karpenter reads its options from it). */
  start(name: string, command: string, args: string[], env?: Record<string, string>): Started {
    const logPath = join(this.logDir, `${name}.log`);
    const fd = openSync(logPath, 'a');
    const shownEnv = env
      ? `${Object.entries(env)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')} `
      : '';
    appendFileSync(logPath, `$ ${shownEnv}${command} ${args.join(' ')}\n`);
    const child = spawn(command, args, {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: env ? { ...process.env, ...env } : undefined,
    });
    closeSync(fd);
    if (child.pid === undefined) throw new Error(`cannot start ${name} (${command}); see ${logPath}`);
    child.unref();
    const entry: Started = { name, pid: child.pid, logPath, child };
    child.on('exit', (code, signal) => {
      entry.exited = signal ?? `exit code ${code}`;
    });
    child.on('error', (err) => {
      entry.exited = err.message;
    });
    appendFileSync(this.pidFile, `${child.pid}\n`);
    this.started.push(entry);
    return entry;
  }

  /** Throws when any process has exited, naming it and its log. */
  assertRunning(): void {
    const dead = this.started.find((p) => p.exited !== undefined);
    if (dead) throw new Error(`${dead.name} exited (${dead.exited}); log: ${dead.logPath}\n${tail(dead.logPath)}`);
  }

  /**
   * Stops every process (SIGTERM, then SIGKILL after `graceMs`) in reverse start order and
   * removes the state dir, unless `keepState` (start-up failed and its logs are the evidence).
   */
  async stopAll({ graceMs = 3000, keepState = false } = {}): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    process.removeListener('exit', this.onExit);
    for (const p of [...this.started].reverse()) {
      signalGroup(p.pid, 'SIGTERM');
      await waitExit(p, graceMs);
      signalGroup(p.pid, 'SIGKILL');
      await waitExit(p, 1000);
    }
    if (this.reaperPid !== undefined) signalGroup(this.reaperPid, 'SIGKILL');
    if (!keepState) rmSync(this.stateDir, { recursive: true, force: true });
  }

  private killAllSync(signal: NodeJS.Signals): void {
    if (this.stopped) return;
    for (const p of this.started) signalGroup(p.pid, signal);
    if (this.reaperPid !== undefined) signalGroup(this.reaperPid, 'SIGKILL');
    try {
      rmSync(this.stateDir, { recursive: true, force: true });
    } catch {
      // the reaper removes it if we cannot
    }
  }

  /**
   * Polls `check` until it returns true; fails fast if a process died, or at the deadline with
   * the tail of `logOf`'s log (default: the process started last).
   */
  async waitFor(
    what: string,
    deadline: number,
    check: () => Promise<boolean>,
    o: { logOf?: string; pollMs?: number } = {},
  ): Promise<void> {
    let lastError = '';
    for (;;) {
      this.assertRunning();
      try {
        if (await check()) return;
      } catch (err) {
        lastError = (err as Error).message;
      }
      if (Date.now() > deadline) {
        const p = o.logOf === undefined ? this.started.at(-1) : this.started.find((x) => x.name === o.logOf);
        throw new Error(
          `timed out waiting for ${what}${lastError ? ` (last error: ${lastError})` : ''}` +
            (p ? `\n${p.name} log tail:\n${tail(p.logPath)}` : ''),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, o.pollMs ?? 100));
    }
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

function waitExit(p: Started, ms: number): Promise<void> {
  if (p.exited !== undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    p.child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The last lines of a log, to show beside an error. */
export function tail(path: string, lines = 15): string {
  try {
    return readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(-lines)
      .map((l) => `  | ${l}`)
      .join('\n');
  } catch {
    return '';
  }
}
