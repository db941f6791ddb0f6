// SPDX-License-Identifier: Apache-2.0
// The controller's local HTTP surface: status page and JSON, Prometheus metrics, health and
// readiness. It binds 127.0.0.1 only and checks the Host header, so neither other machines
// nor a web page that rebinds its DNS name to 127.0.0.1 can read cluster details from it.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../core/observe/logger.js';
import type { Metrics } from '../../core/observe/metrics.js';
import { PromExposition } from './prom-exposition.js';
import { CheckedSource } from '../../control/runtime/readiness.js';
import { renderStatusPage } from './status-page.js';
import type { StatusSource } from '../../control/runtime/status-source.js';

export interface StatusServerOptions {
  /** 0 picks a free port. */
  port: number;
  /** The only accepted value; present so callers say where they expect it to listen. */
  host?: '127.0.0.1';
  source: StatusSource;
  metrics: Metrics;
  /** When set, `/`, `/api/status` and `/metrics` need `Authorization: Bearer <token>` or `?token=`. */
  token?: string;
  logger?: Logger;
  /** Further routes (the editor), tried after the Host check; true when they answered. */
  routes?: ExtraRoutes;
}

/** `origins` are this server's own origins, for routes that check a request's Origin. */
export type ExtraRoutes = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  origins: ReadonlySet<string>,
) => Promise<boolean>;

export interface StatusServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  url: string;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
const PROTECTED = new Set(['/', '/api/status', '/metrics']);
const PUBLIC = new Set(['/healthz', '/readyz']);
const HTML_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const digest = (s: string) => createHash('sha256').update(s).digest();

function authorised(req: IncomingMessage, url: URL, token: string | undefined): boolean {
  if (token === undefined) return true;
  const header = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const given = header ?? url.searchParams.get('token');
  // Comparing fixed-length digests keeps the comparison constant-time whatever the length.
  return given !== null && timingSafeEqual(digest(given), digest(token));
}

function send(
  res: ServerResponse,
  head: boolean,
  status: number,
  type: string,
  body: string,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...extra,
  });
  res.end(head ? undefined : body);
}

const TEXT = 'text/plain; charset=utf-8';

export async function startStatusServer(o: StatusServerOptions): Promise<StatusServer> {
  if (o.host !== undefined && o.host !== HOST)
    throw new Error(`the status server binds ${HOST} only, not ${String(o.host)}`);
  let port = 0;
  const exposition = new PromExposition(o.metrics);
  const allowedHosts = () => new Set([`${HOST}:${port}`, `localhost:${port}`]);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', `http://${HOST}`);
    const head = req.method === 'HEAD';
    if (!allowedHosts().has((req.headers.host ?? '').toLowerCase()))
      return send(res, head, 421, TEXT, 'misdirected request\n');
    if (o.routes && (await o.routes(req, res, url, new Set([`http://${HOST}:${port}`, `http://localhost:${port}`]))))
      return;
    if (!PROTECTED.has(url.pathname) && !PUBLIC.has(url.pathname)) return send(res, head, 404, TEXT, 'not found\n');
    if (req.method !== 'GET' && !head)
      return send(res, head, 405, TEXT, 'method not allowed\n', { Allow: 'GET, HEAD' });
    if (url.pathname === '/healthz') return send(res, head, 200, TEXT, 'ok');
    if (url.pathname === '/readyz') {
      if (o.source.ready()) return send(res, head, 200, TEXT, 'ok');
      const why = o.source instanceof CheckedSource ? o.source.failures() : [];
      return send(res, head, 503, TEXT, ['not ready', ...why].join('\n'));
    }
    if (!authorised(req, url, o.token))
      return send(res, head, 401, TEXT, 'unauthorised\n', { 'WWW-Authenticate': 'Bearer realm="kpol"' });
    if (url.pathname === '/metrics') return send(res, head, 200, exposition.contentType, await exposition.render());
    const view = await o.source.status();
    if (url.pathname === '/api/status')
      return send(res, head, 200, 'application/json; charset=utf-8', `${JSON.stringify(view)}\n`);
    return send(res, head, 200, 'text/html; charset=utf-8', renderStatusPage(view), {
      'Content-Security-Policy': HTML_CSP,
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      o.logger?.error('status request failed', { path: req.url, err });
      if (!res.headersSent) send(res, req.method === 'HEAD', 500, TEXT, 'internal error\n');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  o.logger?.info('status server listening', { url: `http://${HOST}:${port}` });
  return {
    url: `http://${HOST}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive connections (fetch keeps them) would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}
