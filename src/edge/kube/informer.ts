// SPDX-License-Identifier: Apache-2.0
// One kind's list+watch loop, as client-go's reflector runs it: list once (the cache, silently),
// then watch from the list's resourceVersion and hand each change to the handlers in order.
// The loop survives everything a real server and network do: a watch the server closes is
// resumed from the last resourceVersion seen; 410 Gone (the version was compacted away)
// relists and turns the difference between cache and list into ADDED/MODIFIED/DELETED events,
// so no change is lost; other failures back off exponentially (with jitter) and retry; a
// malformed line is logged and skipped; a handler that throws is logged. A periodic resync
// relists the same way, so an event a proxy swallowed is repaired within `resyncMs`. The cache
// is kept in list order, and an object whose resourceVersion did not change stays the same
// object across relists, so readers can tell what changed by identity.
//
// Why not @kubernetes/client-node's informer (ListWatch, 2.0.1): on any failure but 410 or a
// client timeout it reports the error and stops, leaving the restart to the caller; a failed
// list stops it too; a malformed watch line is dropped without a word; and it has no resync.
// This loop uses the same KubeConfig and HTTP library (rest.ts) and keeps going instead.
import { ApiError, type WatchEvent } from '../../core/cluster/client.js';
import type { KubeObject } from '../../core/cluster/types.js';
import type { Logger } from '../../core/observe/logger.js';
import { inNamespace, SortedObjects } from '../../core/cluster/sorted-objects.js';
import { deepFreeze } from '../../core/cluster/memory/deep.js';
import { leanCopy, Sharing } from '../../core/cluster/lean.js';
import { statusError } from './api-errors.js';
import { resourcePath, typed, type Resource } from './api-resources.js';
import { isAbort, type RestClient } from './rest.js';
import { decodeEvent, lines } from './watch-events.js';

export interface InformerOptions {
  /** Full relist interval. Default 5 minutes. */
  resyncMs?: number;
  /** First retry delay after a failure, doubled per consecutive failure up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How long the server keeps one watch open. Default 240 s. */
  watchSeconds?: number;
  logger?: Logger;
  /** Cache lean copies (src/core/cluster/lean.ts). Default true; false caches whole objects (the bench's baseline). */
  lean?: boolean;
}

interface ListAnswer {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: Record<string, unknown>[];
}

/** Items per list request, as client-go's reflector asks. */
const LIST_PAGE = 500;
const keyOf = (o: KubeObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

export class Informer {
  private readonly handlers = new Set<(e: WatchEvent) => void>();
  private readonly cache = new Map<string, KubeObject>();
  private readonly sorted = new SortedObjects(() => this.cache);
  /** The cache holds lean copies (src/core/cluster/lean.ts): what kpol reads, equal parts shared. */
  private readonly sharing = new Sharing();
  private version = '';
  private stopped = false;
  private abort: AbortController | undefined;
  private readonly syncedOnce: Promise<void>;
  private markSynced!: () => void;
  private lastList = 0;
  private needList = false;
  /** Failures since the last successful list or watch event: the backoff exponent. */
  private failures = 0;
  /** Events that reached handlers (tests, status). */
  delivered = 0;
  /** Malformed lines skipped. */
  malformed = 0;
  /** Relists after 410 Gone. */
  relists = 0;
  /** Completed lists (the first, resyncs, relists). */
  lists = 0;

  constructor(
    private readonly rest: RestClient,
    readonly resource: Resource,
    private readonly o: InformerOptions = {},
  ) {
    this.syncedOnce = new Promise((resolve) => {
      this.markSynced = resolve;
    });
  }

  /** Starts the loop; resolves after the first list. */
  start(): Promise<void> {
    void this.run(true);
    return this.syncedOnce;
  }

  /**
   * Restarts a stopped informer's watch from `version` (default: the last one seen) without
   * listing first — as a controller does with a version it kept. The server replays what
   * changed since, or answers 410 Gone when that version is compacted away, and then the
   * informer relists.
   */
  resume(version = this.version): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.version = version;
    void this.run(false);
  }

  /** Resolves once the first list is in the cache. */
  synced(): Promise<void> {
    return this.syncedOnce;
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
  }

  subscribe(handler: (e: WatchEvent) => void): { stop(): void } {
    this.handlers.add(handler);
    return {
      stop: () => {
        this.handlers.delete(handler);
      },
    };
  }

  /** The resourceVersion of the latest change seen (list, event or bookmark). */
  latestVersion(): string {
    return this.version;
  }

  /** Every cached object, by namespace/name. */
  cached(): ReadonlyMap<string, KubeObject> {
    return this.cache;
  }

  /** The cached objects of `namespace` (every one when undefined) in list order, as a new array. */
  listCached(namespace?: string): KubeObject[] {
    return inNamespace(this.sorted.read(), namespace);
  }

  /** Listed, running, and its last list or watch event did not fail: the cache is as current as the watch. */
  current(): boolean {
    return this.lists > 0 && !this.stopped && this.failures === 0;
  }

  /** Forces a relist on the next turn of the loop (the current watch is closed). */
  relist(): void {
    this.needList = true;
    this.abort?.abort();
  }

  private async run(listFirst: boolean): Promise<void> {
    this.needList ||= listFirst;
    while (!this.stopped) {
      try {
        if (this.needList || (this.lastList > 0 && Date.now() - this.lastList >= (this.o.resyncMs ?? 300_000))) {
          await this.list();
          this.needList = false;
        }
        await this.watch();
      } catch (e) {
        if (this.stopped) return;
        if (isAbort(e)) continue; // relist() or a resync asked for it
        if (e instanceof ApiError && (e.code === 410 || e.reason === 'Expired' || e.reason === 'Gone')) {
          this.relists++;
          this.o.logger?.info('watch expired; relisting', { kind: this.resource.kind, resourceVersion: this.version });
          this.needList = true;
          continue;
        }
        this.failures++;
        const delay = this.backoff();
        this.o.logger?.warn('watch failed; retrying', {
          kind: this.resource.kind,
          error: (e as Error).message ?? String(e),
          retryInMs: delay,
        });
        await this.sleep(delay);
      }
    }
  }

  private backoff(): number {
    const base = this.o.backoffMs ?? 250;
    const max = this.o.maxBackoffMs ?? 30_000;
    const exp = Math.min(max, base * 2 ** Math.min(this.failures - 1, 20));
    return Math.round(exp * (0.8 + Math.random() * 0.4));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.abort = new AbortController();
      this.abort.signal.addEventListener('abort', () => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  /** Lists page by page; after the first list, differences to the cache become events. */
  private async list(): Promise<void> {
    const items: KubeObject[] = [];
    let cont: string | undefined;
    let version = '';
    do {
      const page = await this.listPage(cont, items);
      cont = page.cont;
      version = page.version ?? version;
    } while (cont);
    const first = this.lastList === 0;
    const seen = new Set<string>();
    for (const obj of items) {
      const key = keyOf(obj);
      seen.add(key);
      const old = this.cache.get(key);
      if (old?.metadata.resourceVersion === obj.metadata.resourceVersion) continue;
      const cached = this.put(key, obj);
      if (first) continue;
      this.dispatch(old ? { type: 'MODIFIED', object: cached, old } : { type: 'ADDED', object: cached });
    }
    for (const [key, old] of [...this.cache]) {
      if (seen.has(key)) continue;
      this.remove(key);
      if (!first) this.dispatch({ type: 'DELETED', object: old });
    }
    this.version = version;
    this.lists++;
    this.lastList = Date.now();
    this.failures = 0;
    this.markSynced();
  }

  /**
   * One page of the list, its items made lean into `into` as soon as it arrives: 150,000 whole
   * pods would be ~1.5 GB at once. Only lean copies outlive this call, so a parsed page is garbage
   * before the next one is asked for and dies young (kept across the next request, pages were
   * promoted to the old generation and the heap grew to twice the 5k/150k figure).
   */
  private async listPage(cont: string | undefined, into: KubeObject[]): Promise<{ cont?: string; version?: string }> {
    const page = await this.rest.request<ListAnswer>({
      verb: 'GET',
      path: resourcePath(this.resource),
      query: { limit: LIST_PAGE, continue: cont },
    });
    for (const item of page.items ?? []) into.push(this.lean(typed<KubeObject>(item, this.resource)));
    return { cont: page.metadata?.continue || undefined, version: page.metadata?.resourceVersion };
  }

  private async watch(): Promise<void> {
    const seconds = this.o.watchSeconds ?? 240;
    const resync = this.o.resyncMs ?? 300_000;
    this.abort = new AbortController();
    const timeout = setTimeout(() => this.abort?.abort(), Math.min(seconds * 1000 + 15_000, resync));
    try {
      const stream = await this.rest.stream({
        verb: 'GET',
        path: resourcePath(this.resource),
        signal: this.abort.signal,
        query: { watch: 1, resourceVersion: this.version, allowWatchBookmarks: true, timeoutSeconds: seconds },
      });
      for await (const line of lines(stream)) {
        const e = decodeEvent(line, this.resource);
        switch (e.type) {
          case 'MALFORMED':
            this.malformed++;
            this.o.logger?.warn('malformed watch event skipped', {
              kind: this.resource.kind,
              problem: e.problem,
              line: line.slice(0, 200),
            });
            break;
          case 'ERROR':
            throw statusError(e.status.code ?? 500, JSON.stringify(e.status), `watch ${this.resource.kind}`);
          case 'BOOKMARK':
            this.version = e.resourceVersion;
            break;
          case 'ADDED':
          case 'MODIFIED':
          case 'DELETED': {
            const key = keyOf(e.object);
            const old = e.type === 'MODIFIED' ? this.cache.get(key) : undefined;
            const object = e.type === 'DELETED' ? (this.remove(key), e.object) : this.put(key, this.lean(e.object));
            this.version = e.object.metadata.resourceVersion!;
            this.failures = 0;
            this.dispatch(old ? { type: e.type, object, old } : { type: e.type, object });
            break;
          }
          default: {
            const never: never = e;
            throw new Error(`unhandled watch event ${String(never)}`);
          }
        }
        if (this.stopped) return;
      }
    } finally {
      clearTimeout(timeout);
    }
  }

  /**
   * What the cache keeps of `obj`: a lean copy (only what kpol reads of the numerous kinds, equal
   * parts shared), frozen, because cached objects are handed to every reader, as the in-memory server's are.
   */
  private lean(obj: KubeObject): KubeObject {
    // Pods and Nodes keep only the fields object-shapes.ts declares; kpol only patches them, so a
    // cached copy is never written back whole (test/reconciler/projection.test.ts checks both).
    return deepFreeze(this.o.lean === false ? obj : leanCopy(obj, this.sharing));
  }

  /** Caches `obj` (made lean by the caller) and returns it. */
  private put(key: string, obj: KubeObject): KubeObject {
    const old = this.cache.get(key);
    this.cache.set(key, obj);
    if (old) this.sorted.replace(old, obj);
    else this.sorted.add(obj);
    return obj;
  }

  private remove(key: string): void {
    const old = this.cache.get(key);
    if (!old) return;
    this.cache.delete(key);
    this.sorted.remove(old);
  }

  private dispatch(event: WatchEvent): void {
    this.delivered++;
    for (const h of [...this.handlers]) {
      try {
        h(event);
      } catch (e) {
        this.o.logger?.error('watch handler failed', {
          kind: this.resource.kind,
          error: (e as Error).message ?? String(e),
        });
      }
    }
  }
}
