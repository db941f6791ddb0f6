// SPDX-License-Identifier: Apache-2.0
// A real `kpol serve` (or `kpol run`, or `npm start` itself) child process on 127.0.0.1 with a
// free port; the URL and the token are read from what it prints at start, as a user would read
// them. Stopped by its PID (`npm start`: by its process group, which holds npm and kpol).
import { spawn, type ChildProcess } from 'node:child_process';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = new URL('../../src/edge/cli/bin.mjs', import.meta.url).pathname;

export interface Served {
  url: string; // http://127.0.0.1:PORT
  editorUrl: string; // with #token=…
  token: string;
  output(): string;
  stop(): Promise<void>;
}

export async function startServe(args: string[] = [], command: 'serve' | 'run' = 'serve'): Promise<Served> {
  return served(
    spawn(process.execPath, [BIN, command, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] }),
    `kpol ${command}`,
    false,
  );
}

/** The README's quick start as typed, `npm start`, with `--port 0` (and `args`) passed through to `kpol run`. */
export async function startNpmStart(args: string[] = []): Promise<Served> {
  const child = spawn('npm', ['start', '--silent', '--', '--port', '0', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  return served(child, 'npm start', true);
}

async function served(child: ChildProcess, what: string, group: boolean): Promise<Served> {
  let err = '';
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const ready = new Promise<{ editorUrl: string; token: string }>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const e = /kpol: editor (\S+)/.exec(err);
      const t = /kpol: access token (\S+)/.exec(err);
      if (e && t) resolve({ editorUrl: e[1], token: t[1] });
    });
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}:\n${err}`)));
  });
  const { editorUrl, token } = await ready;
  return {
    url: new URL(editorUrl).origin,
    editorUrl,
    token,
    output: () => out + err,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        try {
          if (group) process.kill(-child.pid!, 'SIGTERM');
          else child.kill('SIGTERM');
        } catch {
          resolve(); // already gone
        }
      }),
  };
}
