// SPDX-License-Identifier: Apache-2.0
// `kpol serve` and `kpol run` on a port another process holds: a usage error (exit 2) that
// names the port and the flag, not "internal error: listen EADDRINUSE".
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOn } from '../../src/edge/cli/shared/listen.js';
import { runCli } from './run-cli.js';

let holder: Server;
let port: number;
beforeAll(async () => {
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  port = (holder.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

describe('a port already in use', () => {
  it.each([['serve'], ['run']])('kpol %s --port <taken> is exit 2 naming the port', async (command) => {
    const r = await runCli(command, '--port', String(port), '--for', '1');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`kpol ${command}: cannot listen on 127.0.0.1:${port}: port ${port} is already in use`);
    expect(r.stderr).toContain('choose another with --port PORT, or --port 0 for any free port');
    expect(r.stderr).not.toContain('internal error');
  });

  it('listenOn passes other failures through unchanged', async () => {
    const boom = new Error('boom');
    await expect(
      listenOn('--port', '127.0.0.1', 1, async () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    await expect(
      listenOn('--port', '127.0.0.1', 80, async () => {
        throw Object.assign(new Error('listen EACCES'), { code: 'EACCES' });
      }),
    ).rejects.toThrow('cannot listen on 127.0.0.1:80: permission denied');
  });
});
