// SPDX-License-Identifier: Apache-2.0
// Which API requests kpol's controller makes, recorded from the code itself: a ClusterClient
// wrapper around the in-memory API server that notes, for every call, the REST request(s) the
// Kubernetes adapter (src/edge/kube/kube-cluster.ts) turns it into — resource, subresource, verb and
// namespace — using the adapter's own resource table. Server-side apply (govern mode) is a
// `patch`; on the in-memory server it is played by a merge patch that also drops the fields the
// same configuration applied before and leaves out now, as the API server does for the fields
// one manager alone owns.
import type {
  ClusterClient,
  DeleteOptions,
  Kind,
  MergePatch,
  ObjectKey,
  Preconditions,
  WatchEvent,
} from '../../src/core/cluster/client.js';
import type { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { KubeObject } from '../../src/core/cluster/types.js';
import { RESOURCES } from '../../src/edge/kube/api-resources.js';

export interface ApiRequest {
  group: string; // '' for the core group
  resource: string; // plural, with `/subresource` when there is one
  verb: 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';
  /** undefined for cluster-scoped resources and for requests across all namespaces. */
  namespace?: string;
  /** The one object a request names, where the RBAC grants only that one (resourceNames). */
  name?: string;
}

export const requestKey = (r: ApiRequest) => `${r.group}|${r.resource}|${r.verb}|${r.namespace ?? '*'}`;

const groupOf = (kind: Kind) => {
  const v = RESOURCES[kind].apiVersion;
  return v.includes('/') ? v.slice(0, v.indexOf('/')) : '';
};

/** Leaf paths of an apply configuration (objects are walked, arrays are atomic), without its identity fields. */
function leaves(v: unknown, path: string[] = []): string[][] {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return [path];
  return Object.entries(v).flatMap(([k, c]) => leaves(c, [...path, k]));
}
const IDENTITY = new Set(['apiVersion', 'kind', 'metadata.name', 'metadata.namespace']);

export class RecordingClient implements ClusterClient {
  readonly requests = new Map<string, ApiRequest>();
  /** Per object, the leaf paths the last apply configuration set (what the field manager owns). */
  private readonly applied = new Map<string, string[][]>();

  constructor(private readonly inner: MemoryCluster) {}

  private note(kind: Kind, verb: ApiRequest['verb'], namespace: string | undefined, subresource?: string): void {
    const res = RESOURCES[kind];
    const r: ApiRequest = {
      group: groupOf(kind),
      resource: subresource ? `${res.plural}/${subresource}` : res.plural,
      verb,
      ...(res.namespaced && namespace ? { namespace } : {}),
    };
    this.requests.set(requestKey(r), r);
  }

  async list<T extends KubeObject>(kind: Kind, namespace?: string): Promise<T[]> {
    this.note(kind, 'list', namespace);
    return this.inner.list<T>(kind, namespace);
  }

  async get<T extends KubeObject>(key: ObjectKey): Promise<T | undefined> {
    this.note(key.kind, 'get', key.namespace ?? 'default');
    return this.inner.get<T>(key);
  }

  async create<T extends KubeObject>(obj: T): Promise<T> {
    const kind = obj.kind as Kind;
    const ns = obj.metadata.namespace ?? 'default';
    this.note(kind, 'create', ns);
    const res = RESOURCES[kind];
    if (
      res.statusSubresource &&
      !res.statusOnCreate &&
      obj.status !== undefined &&
      Object.keys(obj.status as object).length
    )
      this.note(kind, 'update', ns, 'status');
    return this.inner.create(obj);
  }

  async update<T extends KubeObject>(obj: T): Promise<T> {
    const kind = obj.kind as Kind;
    const ns = obj.metadata.namespace ?? 'default';
    this.note(kind, 'update', ns);
    const before = await this.inner.get({ kind, name: obj.metadata.name, namespace: ns });
    if (
      RESOURCES[kind].statusSubresource &&
      obj.status !== undefined &&
      JSON.stringify(obj.status) !== JSON.stringify(before?.status)
    )
      this.note(kind, 'update', ns, 'status');
    return this.inner.update(obj);
  }

  async patch<T extends KubeObject>(key: ObjectKey, patch: MergePatch, preconditions?: Preconditions): Promise<T> {
    const ns = key.namespace ?? 'default';
    const rest: MergePatch = { ...patch };
    const spec = patch.spec as Record<string, unknown> | undefined;
    if (key.kind === 'Pod' && typeof spec?.nodeName === 'string') {
      this.note('Pod', 'create', ns, 'binding'); // the adapter binds through pods/binding
      const { nodeName: _, ...others } = spec;
      if (Object.keys(others).length) rest.spec = others;
      else delete rest.spec;
    }
    const { status, ...main } = rest;
    if (RESOURCES[key.kind].statusSubresource && status !== undefined) {
      this.note(key.kind, 'patch', ns, 'status');
      if (Object.keys(main).length) this.note(key.kind, 'patch', ns);
    } else if (Object.keys(rest).length) {
      this.note(key.kind, 'patch', ns);
    }
    return this.inner.patch<T>(key, patch, preconditions);
  }

  /** Server-side apply (KubeClusterClient.apply): a PATCH of the object or its status. */
  async apply<T extends KubeObject>(obj: KubeObject, o: { subresource?: 'status'; force?: boolean } = {}): Promise<T> {
    const kind = obj.kind as Kind;
    const ns = obj.metadata.namespace ?? 'default';
    this.note(kind, 'patch', ns, o.subresource);
    const id = `${kind}/${RESOURCES[kind].namespaced ? `${ns}/` : ''}${obj.metadata.name}`;
    const now = leaves(obj).filter((p) => !IDENTITY.has(p.join('.')) && p.length > 0);
    const patch: Record<string, any> = {};
    const set = (p: string[], v: unknown) => {
      let at = patch;
      for (const k of p.slice(0, -1)) at = at[k] ??= {};
      at[p[p.length - 1]] = v;
    };
    for (const p of now)
      set(
        p,
        p.reduce<any>((v, k) => v[k], obj),
      );
    const kept = new Set(now.map((p) => p.join('.')));
    for (const p of this.applied.get(id) ?? []) if (!kept.has(p.join('.'))) set(p, null);
    this.applied.set(id, now);
    return this.inner.patch<T>(
      { kind, name: obj.metadata.name, ...(RESOURCES[kind].namespaced && { namespace: ns }) },
      patch,
    );
  }

  async delete(key: ObjectKey, options?: DeleteOptions): Promise<void> {
    this.note(key.kind, 'delete', key.namespace ?? 'default');
    return this.inner.delete(key, options);
  }

  async evict(namespace: string, name: string, preconditions?: Preconditions): Promise<void> {
    this.note('Pod', 'create', namespace || 'default', 'eviction');
    return this.inner.evict(namespace, name, preconditions);
  }

  watch(kind: Kind, handler: (e: WatchEvent) => void): { stop(): void } {
    // The adapter's informer lists, then watches, across all namespaces.
    this.note(kind, 'list', undefined);
    this.note(kind, 'watch', undefined);
    return this.inner.watch(kind, handler);
  }

  /** Informers `kpol run` starts on a cluster (run-cluster.ts `client.start`), recorded as watch() would. */
  informers(kinds: readonly Kind[]): void {
    for (const k of kinds) {
      this.note(k, 'list', undefined);
      this.note(k, 'watch', undefined);
    }
  }
}
