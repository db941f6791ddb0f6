// SPDX-License-Identifier: Apache-2.0
// The ClusterClient on a real API server (contract in src/core/cluster/client.ts). What the real
// server does itself — finalizers, deletion timestamps, graceful pod deletion, the Eviction
// API and PDBs, optimistic concurrency, garbage collection — it does; this adapter only maps
// the interface onto REST: status goes through the /status subresource where the kind has one,
// merge patches carry their preconditions in metadata, deletes send DeleteOptions, and watches
// are informers that are shared per kind. With `cachedReads` (the controller) a list is served
// from the kind's informer cache when it is current and shows this client's own writes
// (unseen-writes.ts), as controller-runtime's cached client does; otherwise from the server.
import type { KubeConfig } from '@kubernetes/client-node';
import type {
  ClusterClient,
  DeleteOptions,
  Kind,
  MergePatch,
  ObjectKey,
  Preconditions,
  WatchEvent,
} from '../../core/cluster/client.js';
import { isApiError } from '../../core/cluster/client.js';
import { apiError } from '../../core/cluster/memory/errors.js';
import type { KubeObject } from '../../core/cluster/types.js';
import type { Logger } from '../../core/observe/logger.js';
import { Informer, type InformerOptions } from './informer.js';
import { namespaceFor, resourceOf, resourcePath, typed, type Resource } from './api-resources.js';
import { RestClient } from './rest.js';
import { revision, UnseenWrites } from './unseen-writes.js';

export interface KubeClusterOptions {
  logger?: Logger;
  informer?: Omit<InformerOptions, 'logger'>;
  /** Server-side apply field manager for the fields kpol owns. Default `kpol`. */
  fieldManager?: string;
  /**
   * Serve list() from the kind's informer cache when it can (see the top of this file). The
   * objects of an unchanged cache are the same objects from one list to the next, and a quiet
   * 150,000-pod cluster is not listed again after every change. Default off: each list asks the
   * server.
   */
  cachedReads?: boolean;
}

interface ListAnswer {
  metadata?: { continue?: string };
  items?: Record<string, unknown>[];
}

const MERGE_PATCH = 'application/merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';

export class KubeClusterClient implements ClusterClient {
  readonly rest: RestClient;
  private readonly informers = new Map<Kind, Informer>();
  /** Writes this client made per kind: part of the change stamp, which must move at once. */
  private readonly writes = new Map<Kind, number>();
  private readonly fieldManager: string;
  /** The newest resourceVersion a write of this client returned (see watch()). */
  private lastWritten: bigint | undefined;
  private readonly unseen = new UnseenWrites();
  /** Where list() answered from (tests, status). */
  readonly reads = { cache: 0, server: 0 };

  constructor(
    kc: KubeConfig,
    private readonly o: KubeClusterOptions = {},
  ) {
    this.rest = new RestClient(kc);
    this.fieldManager = o.fieldManager ?? 'kpol';
  }

  /** Starts the informers of `kinds` and resolves once each has listed. */
  async start(kinds: readonly Kind[]): Promise<void> {
    await Promise.all(kinds.map((k) => this.informer(k).synced()));
  }

  /** Stops every informer (watch connections close). */
  close(): void {
    for (const i of this.informers.values()) i.stop();
    this.informers.clear();
  }

  /** The running informer of a kind, if any (tests, status). */
  informerOf(kind: Kind): Informer | undefined {
    return this.informers.get(kind);
  }

  /**
   * A value that moves whenever an object of `kind` changed: the latest resourceVersion the
   * informer saw, plus this client's own writes (their watch events arrive later, but a reader
   * right after the write must already see a new stamp).
   */
  kindVersion(kind: Kind): string {
    return `${this.informer(kind).latestVersion()}+${this.writes.get(kind) ?? 0}`;
  }

  async list<T extends KubeObject>(kind: Kind, namespace?: string): Promise<T[]> {
    const inf = this.o.cachedReads ? this.informers.get(kind) : undefined;
    if (inf?.current() && this.unseen.shown(kind, inf.latestVersion(), inf.lists)) {
      this.reads.cache++;
      return inf.listCached(resourceOf(kind).namespaced ? namespace : undefined) as T[];
    }
    return this.listFromServer<T>(kind, namespace);
  }

  /** Lists from the server, whatever the informer holds (sorted by namespace and name). */
  async listFromServer<T extends KubeObject>(kind: Kind, namespace?: string): Promise<T[]> {
    this.reads.server++;
    const res = resourceOf(kind);
    const out: T[] = [];
    let cont: string | undefined;
    do {
      const page = await this.rest.request<ListAnswer>({
        verb: 'GET',
        path: resourcePath(res, res.namespaced ? namespace : undefined),
        query: { limit: 500, continue: cont },
      });
      for (const item of page.items ?? []) out.push(typed<T>(item, res));
      cont = page.metadata?.continue || undefined;
    } while (cont);
    return out;
  }

  async get<T extends KubeObject>(key: ObjectKey): Promise<T | undefined> {
    const res = resourceOf(key.kind);
    try {
      return typed<T>(
        await this.rest.request({ verb: 'GET', path: this.objectPath(res, key.namespace, key.name) }),
        res,
      );
    } catch (e) {
      if (isApiError(e, 404)) return undefined;
      throw e;
    }
  }

  async create<T extends KubeObject>(obj: T): Promise<T> {
    const res = resourceOf(obj.kind);
    const namespace = namespaceFor(res, obj.metadata.namespace);
    const body = bodyOf(res, obj, namespace);
    const created = typed<T>(await this.rest.request({ verb: 'POST', path: resourcePath(res, namespace), body }), res);
    this.wrote(res.kind, created);
    // The server drops status on create for kinds with a status subresource; the contract keeps it.
    if (
      res.statusSubresource &&
      !res.statusOnCreate &&
      hasContent(obj.status) &&
      !contains(created.status, obj.status)
    ) {
      return this.writeStatus(res, namespace, { ...created, status: obj.status } as T, 'merge');
    }
    return created;
  }

  async update<T extends KubeObject>(obj: T): Promise<T> {
    const res = resourceOf(obj.kind);
    const namespace = namespaceFor(res, obj.metadata.namespace);
    const body = bodyOf(res, obj, namespace);
    const updated = typed<T>(
      await this.rest.request({ verb: 'PUT', path: this.objectPath(res, namespace, obj.metadata.name), body }),
      res,
    );
    this.wrote(res.kind, updated);
    if (res.statusSubresource && obj.status !== undefined && !sameJson(obj.status, updated.status)) {
      return this.writeStatus(res, namespace, { ...updated, status: obj.status } as T);
    }
    return updated;
  }

  async patch<T extends KubeObject>(key: ObjectKey, patch: MergePatch, preconditions?: Preconditions): Promise<T> {
    const res = resourceOf(key.kind);
    const nodeName = key.kind === 'Pod' ? (patch.spec as { nodeName?: unknown } | undefined)?.nodeName : undefined;
    if (typeof nodeName === 'string') return this.bind<T>(key, nodeName, patch, preconditions);
    const { status, ...main } = patch;
    const withStatus = res.statusSubresource && status !== undefined;
    const parts: Array<[MergePatch, string | undefined]> = withStatus
      ? [...(Object.keys(main).length ? [[main, undefined] as [MergePatch, undefined]] : []), [{ status }, 'status']]
      : [[patch, undefined]];
    let result: T | undefined;
    for (const [i, [body, sub]] of parts.entries()) {
      // Preconditions hold for the object as the caller saw it: only the first request carries them.
      const guarded = i === 0 ? withPreconditions(body, preconditions) : body;
      try {
        result = typed<T>(
          await this.rest.request({
            verb: 'PATCH',
            path: this.objectPath(res, key.namespace, key.name, sub),
            body: guarded,
            contentType: MERGE_PATCH,
          }),
          res,
        );
      } catch (e) {
        throw i === 0 && preconditions?.uid ? uidPreconditionError(e, preconditions.uid) : e;
      }
      this.wrote(res.kind, result);
    }
    return result!;
  }

  /**
   * A pod's spec.nodeName is immutable except through the Binding subresource, which is how a
   * scheduler binds: a merge patch that sets it becomes a Binding (409 if already bound), and
   * the rest of the patch, if any, follows as a normal patch.
   */
  private async bind<T extends KubeObject>(
    key: ObjectKey,
    nodeName: string,
    patch: MergePatch,
    preconditions?: Preconditions,
  ): Promise<T> {
    const res = resourceOf('Pod');
    const namespace = namespaceFor(res, key.namespace)!;
    await this.rest.request({
      verb: 'POST',
      path: this.objectPath(res, namespace, key.name, 'binding'),
      body: {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: key.name, namespace, ...(preconditions?.uid && { uid: preconditions.uid }) },
        target: { apiVersion: 'v1', kind: 'Node', name: nodeName },
      },
    });
    this.wrote('Pod');
    const { nodeName: _bound, ...spec } = patch.spec as Record<string, unknown>;
    const rest: MergePatch = { ...patch, spec };
    if (Object.keys(spec).length === 0) delete rest.spec;
    if (Object.keys(rest).length === 0) {
      const bound = (await this.get<T>(key))!;
      this.unseen.written('Pod', bound.metadata.resourceVersion);
      return bound;
    }
    return this.patch<T>(key, rest);
  }

  /**
   * Server-side apply of the fields kpol owns (labels, annotations, status it computes): the
   * server merges by field ownership, so other writers' fields are kept and a conflict with
   * another manager's field is a 409 unless `force`.
   */
  async apply<T extends KubeObject>(obj: KubeObject, o: { subresource?: 'status'; force?: boolean } = {}): Promise<T> {
    const res = resourceOf(obj.kind);
    const namespace = namespaceFor(res, obj.metadata.namespace);
    const body = {
      ...obj,
      apiVersion: res.apiVersion,
      kind: res.kind,
      metadata: { ...obj.metadata, ...(namespace && { namespace }) },
    };
    const applied = typed<T>(
      await this.rest.request({
        verb: 'PATCH',
        path: this.objectPath(res, namespace, obj.metadata.name, o.subresource),
        body,
        contentType: APPLY_PATCH,
        query: { fieldManager: this.fieldManager, force: o.force ? true : undefined },
      }),
      res,
    );
    this.wrote(res.kind, applied);
    return applied;
  }

  async delete(key: ObjectKey, options: DeleteOptions = {}): Promise<void> {
    const res = resourceOf(key.kind);
    const answer = await this.rest.request<KubeObject | undefined>({
      verb: 'DELETE',
      path: this.objectPath(res, key.namespace, key.name),
      body: {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        propagationPolicy: 'Background',
        ...(options.gracePeriodSeconds !== undefined && { gracePeriodSeconds: options.gracePeriodSeconds }),
        ...(options.preconditions && { preconditions: options.preconditions }),
      },
    });
    // The deleted object when it lingers (finalizers, grace); a Status when it is gone.
    const lingers = answer?.kind !== 'Status' ? answer : undefined;
    this.wrote(res.kind, lingers);
    if (!lingers) await this.wroteUnseen(res.kind);
  }

  async evict(namespace: string, name: string, preconditions?: Preconditions): Promise<void> {
    const ns = namespace || 'default';
    await this.rest.request({
      verb: 'POST',
      path: this.objectPath(resourceOf('Pod'), ns, name, 'eviction'),
      body: {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name, namespace: ns },
        ...(preconditions && { deleteOptions: { preconditions } }),
      },
    });
    this.wrote('Pod');
    this.wrote('PodDisruptionBudget');
    // The eviction wrote the PDB's status, then deleted the pod.
    await this.wroteUnseen('Pod', 'PodDisruptionBudget');
  }

  /**
   * Changes after this call. The informer may still be delivering changes this client made
   * before it (the watch stream lags the write's answer); those are held back by comparing
   * resourceVersions with the newest one this client's writes returned. (etcd revisions are
   * integers; a server with opaque versions gets every event the informer delivers.)
   */
  watch(kind: Kind, handler: (e: WatchEvent) => void): { stop(): void } {
    resourceOf(kind);
    const floor = this.lastWritten;
    if (floor === undefined) return this.informer(kind).subscribe(handler);
    return this.informer(kind).subscribe((e) => {
      // A DELETED after a relist carries the last version the cache saw, which may be older.
      const rv = revision(e.object.metadata.resourceVersion);
      if (e.type === 'DELETED' || rv === undefined || rv > floor) handler(e);
    });
  }

  private informer(kind: Kind): Informer {
    let inf = this.informers.get(kind);
    if (!inf) {
      inf = new Informer(this.rest, resourceOf(kind), {
        ...this.o.informer,
        ...(this.o.logger && { logger: this.o.logger }),
      });
      this.informers.set(kind, inf);
      void inf.start();
    }
    return inf;
  }

  /**
   * Writes `obj.status` through /status: replaced whole at `obj`'s resourceVersion after an
   * update (the caller's status, exactly), merged unconditionally after a create (another
   * controller may already have touched the new object, as the ReplicaSet controller adopts pods).
   */
  private async writeStatus<T extends KubeObject>(
    res: Resource,
    namespace: string | undefined,
    obj: T,
    how: 'replace' | 'merge' = 'replace',
  ): Promise<T> {
    const path = this.objectPath(res, namespace, obj.metadata.name, 'status');
    const written = typed<T>(
      await this.rest.request(
        how === 'replace'
          ? { verb: 'PUT', path, body: obj }
          : { verb: 'PATCH', path, body: { status: obj.status }, contentType: MERGE_PATCH },
      ),
      res,
    );
    this.wrote(res.kind, written);
    return written;
  }

  private objectPath(res: Resource, namespace: string | undefined, name: string, sub?: string): string {
    return resourcePath(res, namespaceFor(res, namespace), name, sub);
  }

  private wrote(kind: Kind, obj?: KubeObject): void {
    this.writes.set(kind, (this.writes.get(kind) ?? 0) + 1);
    const rv = revision(obj?.metadata?.resourceVersion);
    if (rv !== undefined && (this.lastWritten === undefined || rv > this.lastWritten)) this.lastWritten = rv;
    if (obj) this.unseen.written(kind, obj.metadata.resourceVersion);
  }

  /**
   * A write answered without its object: the server's current resourceVersion (a one-item list
   * reads it) is at least the write's. Only cached reads need it. The write itself succeeded, so
   * a failure to read the version does not fail it: the kinds' informers relist instead, and
   * their caches are not read until they have.
   */
  private async wroteUnseen(...kinds: Kind[]): Promise<void> {
    if (!this.o.cachedReads) return;
    try {
      const res = resourceOf(kinds[0]);
      const page = await this.rest.request<{ metadata?: { resourceVersion?: string } }>({
        verb: 'GET',
        path: resourcePath(res),
        query: { limit: 1 },
      });
      for (const kind of kinds) this.unseen.written(kind, page.metadata?.resourceVersion);
    } catch (e) {
      this.o.logger?.warn('could not read the resourceVersion after a write; relisting', {
        kinds,
        error: (e as Error).message ?? String(e),
      });
      for (const kind of kinds) {
        const inf = this.informers.get(kind);
        this.unseen.unknown(kind, inf?.lists ?? 0);
        inf?.relist();
      }
    }
  }
}

/**
 * The real server answers a merge patch whose metadata.uid differs with 422 (uid is immutable);
 * as a precondition that is the 409 a delete or eviction precondition gets.
 */
function uidPreconditionError(e: unknown, uid: string): unknown {
  if (!isApiError(e, 422) || !/metadata\.uid/.test(e.message)) return e;
  return apiError(409, 'Conflict', `Precondition failed: UID in precondition: ${uid}, UID in object meta differs`);
}

/** A merge patch that fails with 409 unless the object still has this uid and resourceVersion. */
function withPreconditions(patch: MergePatch, pre: Preconditions | undefined): MergePatch {
  if (!pre?.uid && !pre?.resourceVersion) return patch;
  const meta = (patch.metadata && typeof patch.metadata === 'object' ? patch.metadata : {}) as Record<string, unknown>;
  return {
    ...patch,
    metadata: {
      ...meta,
      ...(pre.uid && { uid: pre.uid }),
      ...(pre.resourceVersion && { resourceVersion: pre.resourceVersion }),
    },
  };
}

/**
 * Whether `have` already holds everything `want` asks for (empty arrays and objects ask for
 * nothing): a Pending pod's status needs no second write after the server set it.
 */
function contains(have: unknown, want: unknown): boolean {
  if (Array.isArray(want)) {
    if (want.length === 0) return true;
    return Array.isArray(have) && have.length === want.length && want.every((w, i) => contains(have[i], w));
  }
  if (want && typeof want === 'object') {
    if (!have || typeof have !== 'object') return Object.keys(want).length === 0;
    return Object.entries(want).every(([k, v]) => contains((have as Record<string, unknown>)[k], v));
  }
  return have === want;
}

const hasContent = (x: unknown): boolean =>
  x !== undefined && x !== null && (typeof x !== 'object' || Object.keys(x).length > 0);

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** An object as it is sent: its kind's apiVersion when it has none, and the namespace it goes to. */
function bodyOf<T extends KubeObject>(res: { apiVersion: string }, obj: T, namespace: string | undefined): T {
  return {
    ...obj,
    apiVersion: obj.apiVersion || res.apiVersion,
    metadata: { ...obj.metadata, ...(namespace && { namespace }) },
  };
}
