// SPDX-License-Identifier: Apache-2.0
// A real `kpol serve` (or `kpol run`) child process on 127.0.0.1 with a free port; the URL and the token are
// read from what it prints at start, as a user would read them. Stopped by its PID.
import { spawn, type ChildProcess } from 'node:child_process';

const BIN = new URL('../../src/cli/bin.mjs', import.meta.url).pathname;

export interface Served {
  url: string; // http://127.0.0.1:PORT
  editorUrl: string; // with #token=…
  token: string;
  output(): string;
  stop(): Promise<void>;
}

export async function startServe(args: string[] = [], command: 'serve' | 'run' = 'serve'): Promise<Served> {
  const child: ChildProcess = spawn(process.execPath, [BIN, command, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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
    child.once('exit', (code) => reject(new Error(`kpol serve exited with ${code}:\n${err}`)));
  });
  const { editorUrl, token } = await ready;
  return {
    url: new URL(editorUrl).origin,
    editorUrl,
    token,
    output: () => out + err,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
