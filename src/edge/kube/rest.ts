// SPDX-License-Identifier: Apache-2.0
// Plain-JSON requests to the API server through @kubernetes/client-node's KubeConfig (auth,
// TLS, proxy) and its undici-based HTTP library. Objects come back exactly as the server wrote
// them — the generated typed APIs would turn timestamps into Date objects, and kpol's model is
// `kubectl get -o json`.
import { HttpMethod, IsomorphicFetchHttpLibrary, RequestContext, type KubeConfig } from '@kubernetes/client-node';
import { statusError, transportError } from './api-errors.js';

export type Verb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RestRequest {
  verb: Verb;
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Defaults to application/json when there is a body. */
  contentType?: string;
  signal?: AbortSignal;
}

const METHODS: Record<Verb, HttpMethod> = {
  GET: HttpMethod.GET,
  POST: HttpMethod.POST,
  PUT: HttpMethod.PUT,
  PATCH: HttpMethod.PATCH,
  DELETE: HttpMethod.DELETE,
};

/** How long a non-watch request may take before it fails (a hung server must not hang a tick). */
const REQUEST_TIMEOUT_MS = 30_000;

export class RestClient {
  private readonly http = new IsomorphicFetchHttpLibrary();
  readonly server: string;

  constructor(private readonly kc: KubeConfig) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
  }

  /** The decoded JSON answer; an ApiError for any failure. */
  async request<T>(req: RestRequest): Promise<T> {
    const text = await this.send(req, req.signal ?? AbortSignal.timeout(REQUEST_TIMEOUT_MS), async (status, body) => {
      const t = await body.text();
      if (status < 200 || status > 299) throw statusError(status, t, describe(req));
      return t;
    });
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** A streaming GET (watch): the body stream once the server answered 2xx. */
  async stream(req: RestRequest): Promise<ReadableStream<Uint8Array>> {
    return this.send(req, req.signal, async (status, body) => {
      if (status < 200 || status > 299) throw statusError(status, await body.text(), describe(req));
      const stream = body.stream();
      if (!stream) throw statusError(500, '', `${describe(req)}: the server sent no body`);
      return stream;
    });
  }

  private async send<T>(
    req: RestRequest,
    signal: AbortSignal | undefined,
    answer: (
      status: number,
      body: { text(): Promise<string>; stream(): ReadableStream<Uint8Array> | null },
    ) => Promise<T>,
  ): Promise<T> {
    const url = new URL(this.server + req.path);
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const ctx = new RequestContext(url.toString(), METHODS[req.verb]);
    ctx.setHeaderParam('Accept', 'application/json');
    if (req.body !== undefined) {
      ctx.setHeaderParam('Content-Type', req.contentType ?? 'application/json');
      ctx.setBody(JSON.stringify(req.body));
    }
    if (signal) ctx.setSignal(signal);
    await this.kc.applySecurityAuthentication(ctx);
    let response;
    try {
      response = await this.http.send(ctx).toPromise();
    } catch (e) {
      if (signal?.aborted && (signal.reason as { name?: string } | undefined)?.name !== 'TimeoutError') throw e;
      throw transportError(this.server, describe(req), e);
    }
    return answer(response.httpStatusCode, response.body);
  }
}

const describe = (req: RestRequest): string => `${req.verb} ${req.path}`;

export const isAbort = (e: unknown): boolean => (e as { name?: string } | undefined)?.name === 'AbortError';
