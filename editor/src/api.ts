// SPDX-License-Identifier: Apache-2.0
// The server's editor API, with the access token. The token arrives in the URL fragment
// (`/editor/#token=…`, never sent to the server by the browser); it is kept in sessionStorage
// for reloads and removed from the address bar.
import type { ClusterData } from './protocol.js';

export interface StoredPolicy {
  namespace: string;
  name: string;
  key: string;
  text: string;
  resourceVersion: string;
  applied?: boolean;
  /** The controller's `kpol.dev/status` annotation: `valid`, or the errors that keep this version out. */
  status?: string;
}

export interface PolicyAddress {
  namespace: string;
  name: string;
  key: string;
}

export type SaveAnswer =
  | { status: 'saved'; saved: StoredPolicy }
  | { status: 'conflict'; message: string; current: StoredPolicy | null }
  | { status: 'invalid'; message: string }
  | { status: 'error'; message: string };

const TOKEN_KEY = 'kpol.token';

export function takeToken(): string {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

export class EditorApi {
  constructor(private readonly token: string) {}

  private async call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> }> {
    const res = await fetch(path, {
      method,
      headers: {
        Authorization: `Bearer ${this.token}`,
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json().catch(() => ({}))) as Record<string, unknown> };
  }

  async cluster(): Promise<ClusterData> {
    const r = await this.call('GET', '/api/editor/cluster');
    if (r.status !== 200) throw new Error(String(r.json.error ?? `cluster: HTTP ${r.status}`));
    return r.json as unknown as ClusterData;
  }

  /** The stored policies, and the policy that governs each NodePool now (null: none). */
  async policies(): Promise<{ policies: StoredPolicy[]; nodePools: Record<string, string | null> }> {
    const r = await this.call('GET', '/api/editor/policies');
    if (r.status !== 200) throw new Error(String(r.json.error ?? `policies: HTTP ${r.status}`));
    return {
      policies: r.json.policies as StoredPolicy[],
      nodePools: (r.json.nodePools ?? {}) as Record<string, string | null>,
    };
  }

  /**
   * `baseText`: the text the edit started from, so a version bump that left it alone (the controller's status
   * annotation) is no conflict.
   */
  async save(
    at: PolicyAddress,
    text: string,
    resourceVersion: string | undefined,
    baseText?: string,
  ): Promise<SaveAnswer> {
    const r = await this.call('PUT', '/api/editor/policies', {
      ...at,
      text,
      ...(resourceVersion !== undefined && { resourceVersion, ...(baseText !== undefined && { baseText }) }),
    });
    const message = String(r.json.error ?? '');
    if (r.status === 200) return { status: 'saved', saved: r.json.saved as StoredPolicy };
    if (r.status === 409)
      return { status: 'conflict', message, current: (r.json.current as StoredPolicy | null) ?? null };
    if (r.status === 422) return { status: 'invalid', message };
    return { status: 'error', message: message || `HTTP ${r.status}` };
  }

  async simulate(at: PolicyAddress, text: string): Promise<Record<string, unknown>> {
    const r = await this.call('POST', '/api/editor/simulate', { ...at, text });
    if (r.status !== 200) throw new Error(String(r.json.error ?? `simulate: HTTP ${r.status}`));
    return r.json;
  }
}
