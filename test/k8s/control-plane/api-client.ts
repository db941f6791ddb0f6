// SPDX-License-Identifier: Apache-2.0
import { readFileSync } from 'node:fs';
import { request } from 'node:https';

/** What the client authenticates and verifies with: PEM contents. */
export interface ApiCredentials {
  server: string;
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

export interface ApiResponse {
  status: number;
  /** Parsed JSON body, or the raw text when the body is not JSON. */
  body: any;
}

/**
 * A minimal HTTPS client for the apiserver, for the harness's readiness checks and for tests
 * that need the raw status code (an Eviction's 429). Everything else should go through kubectl
 * or the project's own Kubernetes adapter.
 */
export class ApiClient {
  constructor(readonly credentials: ApiCredentials) {}

  /** A client for the first cluster and user of a kubeconfig written by `writeKubeconfig` (JSON, embedded data). */
  static fromKubeconfig(path: string): ApiClient {
    const config = JSON.parse(readFileSync(path, 'utf8'));
    const cluster = config.clusters[0].cluster;
    const user = config.users[0].user;
    const data = (b64: string) => Buffer.from(b64, 'base64');
    return new ApiClient({
      server: cluster.server,
      ca: data(cluster['certificate-authority-data']),
      cert: data(user['client-certificate-data']),
      key: data(user['client-key-data']),
    });
  }

  request(method: string, path: string, body?: unknown, timeoutMs = 5000): Promise<ApiResponse> {
    const url = new URL(path, this.credentials.server);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          ca: this.credentials.ca,
          cert: this.credentials.cert,
          key: this.credentials.key,
          timeout: timeoutMs,
          headers: { accept: 'application/json', ...(payload ? { 'content-type': 'application/json' } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              /* keep text */
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${url} timed out after ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  get(path: string) {
    return this.request('GET', path);
  }
  post(path: string, body: unknown) {
    return this.request('POST', path, body);
  }
  delete(path: string, body?: unknown) {
    return this.request('DELETE', path, body);
  }
}
