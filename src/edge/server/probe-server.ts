// SPDX-License-Identifier: Apache-2.0
// `/healthz` and `/readyz` for the kubelet, on every interface. The status server binds
// 127.0.0.1 only (it shows cluster details), which the kubelet cannot reach in a pod's network
// namespace; this server answers nothing but the two probes, so exposing it reveals nothing.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CheckedSource } from '../../control/runtime/readiness.js';
import type { StatusSource } from '../../control/runtime/status-source.js';

export interface ProbeServer {
  port: number;
  close(): Promise<void>;
}

export async function startProbeServer(
  port: number,
  source: Pick<StatusSource, 'ready'>,
  host = '0.0.0.0',
): Promise<ProbeServer> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://probe').pathname;
    const reply = (status: number, body: string) => {
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (path === '/healthz') return reply(200, 'ok');
    if (path !== '/readyz') return reply(404, 'not found\n');
    if (source.ready()) return reply(200, 'ok');
    const why = source instanceof CheckedSource ? source.failures() : [];
    return reply(503, ['not ready', ...why].join('\n'));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
