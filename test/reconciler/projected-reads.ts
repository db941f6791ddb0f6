// SPDX-License-Identifier: Apache-2.0
// The in-memory API server seen the way `kpol run` sees a real one through its informers: list()
// and watch events of the projected kinds (src/core/cluster/lean.ts PROJECTED_KINDS) give lean,
// projected copies; get() and every write's answer give whole objects, as the server does. Each
// copy is guarded: reading a field that the whole object has and the projection dropped is
// recorded (Kind and path), so a test learns of a read of an undeclared field even when the
// absent value happens not to change a decision.
import type { ClusterClient, Kind, WatchEvent } from '../../src/core/cluster/client.js';
import { leanCopy, PROJECTED_KINDS, Sharing } from '../../src/core/cluster/lean.js';
import { deepCopy, deepFreeze } from '../../src/core/cluster/memory/deep.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { KubeObject } from '../../src/core/cluster/types.js';
import type { Clock } from '../../src/core/clock.js';
import type { ScenarioBackend } from './scenario.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null;

/**
 * Reads of dropped fields, as `Kind.path.to.field` (list items as `[]`), with how often; and full
 * updates of a projected kind, which on a real server could send a projected copy back whole.
 */
export class DroppedReads {
  readonly seen = new Map<string, number>();
  readonly wholeUpdates: string[] = [];
  record(path: string): void {
    this.seen.set(path, (this.seen.get(path) ?? 0) + 1);
  }
}

/**
 * `copy` behind a proxy that records reads of keys `whole` has and `copy` lacks. Proxies are
 * made once per copied part (shared parts too), so identity means what it meant for the copies.
 * The proxy's target is an unfrozen shallow copy: a frozen target would force the proxy to hand
 * out the unguarded nested parts.
 */
function guard(
  copy: unknown,
  whole: unknown,
  path: string,
  reads: DroppedReads,
  made: WeakMap<object, object>,
): unknown {
  if (!isObject(copy) || !isObject(whole)) return copy;
  const known = made.get(copy);
  if (known) return known;
  const list = Array.isArray(copy);
  const target = (list ? [...(copy as unknown[])] : { ...copy }) as Json;
  const dropped = (key: string | symbol): boolean =>
    typeof key === 'string' && !(key in target) && Object.prototype.hasOwnProperty.call(whole, key);
  const proxy = new Proxy(target, {
    get(t, key, receiver) {
      if (dropped(key)) reads.record(`${path}.${String(key)}`);
      const v: unknown = Reflect.get(t, key, receiver);
      if (typeof key !== 'string' || !Object.prototype.hasOwnProperty.call(t, key)) return v;
      return guard(v, whole[key], list ? `${path}[]` : `${path}.${key}`, reads, made);
    },
    has(t, key) {
      if (dropped(key)) reads.record(`${path}.${String(key)}`);
      return Reflect.has(t, key);
    },
  });
  made.set(copy, proxy);
  return proxy;
}

/**
 * `obj` (a fresh copy) with what kube-apiserver, the scheduler and the kubelet add to a Pod or
 * Node and the in-memory server does not, where it is absent — so that a read of one of those
 * fields, which the projection drops, is a recorded read here too. The values do not matter:
 * only whether the field is there.
 */
function dressed(obj: Json): Json {
  const fill = (o: Json, fields: Json) => {
    for (const [k, v] of Object.entries(fields)) if (!(k in o)) o[k] = v;
  };
  const meta = obj.metadata as Json;
  fill(meta, { generateName: `${String(meta.name)}-`, selfLink: '', managedFields: [{ manager: 'kubelet' }] });
  const spec = (obj.spec ??= {}) as Json;
  const status = (obj.status ??= {}) as Json;
  if (obj.kind === 'Pod') {
    fill(spec, {
      volumes: [{ name: 'kube-api-access' }],
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      serviceAccountName: 'default',
      serviceAccount: 'default',
      preemptionPolicy: 'PreemptLowerPriority',
      enableServiceLinks: true,
      securityContext: {},
      hostname: '',
      readinessGates: [],
      schedulingGates: [],
    });
    for (const c of [...((spec.containers as Json[] | undefined) ?? []), ...((spec.initContainers as Json[]) ?? [])])
      fill(c, { image: 'registry.example.com/app:1', ports: [], env: [], volumeMounts: [], imagePullPolicy: 'Always' });
    fill(status, {
      hostIP: '192.168.0.10',
      podIP: '10.0.0.1',
      podIPs: [],
      qosClass: 'Burstable',
      containerStatuses: [],
      initContainerStatuses: [],
      nominatedNodeName: '',
      reason: '',
      message: '',
    });
  } else {
    fill(spec, { podCIDR: '10.0.0.0/24', podCIDRs: [], externalID: '' });
    fill(status, {
      addresses: [],
      daemonEndpoints: {},
      nodeInfo: {},
      images: [],
      volumesInUse: [],
      volumesAttached: [],
      phase: '',
      config: {},
    });
  }
  return obj;
}

/** A ClusterClient over `inner` whose list() and watch events give guarded projected copies. */
export class ProjectedReads implements ClusterClient {
  private readonly sharing = new Sharing();
  private readonly copies = new WeakMap<object, KubeObject>();
  private readonly made = new WeakMap<object, object>();

  constructor(
    private readonly inner: MemoryCluster,
    readonly reads: DroppedReads,
  ) {}

  private projected<T extends KubeObject>(obj: T): T {
    if (!PROJECTED_KINDS.has(obj.kind)) return obj;
    let copy = this.copies.get(obj);
    if (!copy) {
      // Unfrozen, as an informer decodes it: leanCopy takes frozen parts as they are.
      const whole = dressed(deepCopy(obj) as unknown as Json) as unknown as KubeObject;
      const lean = deepFreeze(leanCopy(deepCopy(whole), this.sharing));
      copy = guard(lean, whole, obj.kind, this.reads, this.made) as KubeObject;
      this.copies.set(obj, copy);
    }
    return copy as T;
  }

  /** The memory server's own (nodepool-status.test.ts reads it through the runtime's client). */
  resourceVersion(): string {
    return this.inner.resourceVersion();
  }

  kindVersion(kind: Kind): number {
    return this.inner.kindVersion(kind);
  }

  async list<T extends KubeObject>(kind: Kind, namespace?: string): Promise<T[]> {
    return (await this.inner.list<T>(kind, namespace)).map((o) => this.projected(o));
  }

  watch(kind: Kind, handler: (e: WatchEvent) => void): { stop(): void } {
    return this.inner.watch(kind, (e) => handler({ ...e, object: this.projected(e.object) }));
  }

  get: ClusterClient['get'] = (key) => this.inner.get(key);
  create: ClusterClient['create'] = (obj) => this.inner.create(obj);
  update: ClusterClient['update'] = (obj) => {
    if (PROJECTED_KINDS.has(obj.kind)) this.reads.wholeUpdates.push(`${obj.kind} ${obj.metadata.name}`);
    return this.inner.update(obj);
  };
  patch: ClusterClient['patch'] = (key, patch, pre) => this.inner.patch(key, patch, pre);
  delete: ClusterClient['delete'] = (key, o) => this.inner.delete(key, o);
  evict: ClusterClient['evict'] = (ns, name, pre) => this.inner.evict(ns, name, pre);
}

/** Scenarios on the in-memory server read through ProjectedReads, recording into `reads`. */
export function projectedScenarioBackend(reads: DroppedReads): ScenarioBackend {
  return {
    name: 'projected',
    prepare: (objects: KubeObject[], clock: Clock) => ({
      options: { cluster: new ProjectedReads(new MemoryCluster(clock, objects), reads), workloadControllers: true },
      ready: Promise.resolve(),
      settle: async () => {},
    }),
  };
}
