// SPDX-License-Identifier: Apache-2.0
// Policies stored in ConfigMaps, hot-reloaded. Every ConfigMap labelled `kpol.dev/policy` in the
// controller's namespace contributes its `*.kpol` keys; a change to any of them reloads the
// whole set (checked together with `--policy` files), keeping each ConfigMap's last good
// version when its current one is refused (see last-good.ts). A refused ConfigMap gets a
// Warning Event and its `kpol.dev/status` annotation names the first errors; an accepted one
// is annotated `valid`.
import type { PolicySpec } from '../../../rules/model.js';
import { isApiError, type ClusterClient, type WatchEvent } from '../cluster/client.js';
import { LABEL_POLICY_CONFIGMAP, type ConfigMap } from '../cluster/types.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../observe/logger.js';
import type { EventRecorder } from '../observe/recorder.js';
import { ANNOTATION_POLICY_STATUS, REASON_POLICY_INVALID, REASON_POLICY_VALID, STATUS_VALID, invalidEventMessage, summariseErrors } from './configmap-status.js';
import { resolveLastGood, type LocatedError, type PolicyBundle } from './last-good.js';
import { policySourcesFromConfigMaps, type PolicySource } from './load.js';

export interface ConfigMapPoliciesOptions {
  client: ClusterClient;
  clock: Clock;
  /** The controller's namespace: only ConfigMaps here are read. */
  namespace: string;
  /** `--policy` files: part of every set, already checked by the caller. */
  files?: readonly PolicySource[];
  recorder?: EventRecorder;
  logger?: Logger;
  /** Called with the new set whenever the enforced policies change. */
  onChange?: (policies: readonly PolicySpec[]) => void;
  /**
   * Whether this replica reports (events, annotations); default always. Every replica loads the
   * policies, but only the leader tells the ConfigMaps, so two replicas do not write twice.
   */
  reporting?: () => boolean;
}

export interface ConfigMapState {
  /** `valid`, or the errors that keep its current version out. */
  status: string;
  rejected: LocatedError[];
}

/** What the editor asks of the loader: what it may not edit, and what is in force now. */
export interface PolicySources {
  /** The namespace whose labelled ConfigMaps are loaded: the only place a saved policy takes effect. */
  readonly namespace: string;
  /** Policies from files given on the command line (not editable in the browser). */
  readonly files: readonly PolicySource[];
  /** The sources the controller enforces now: the files, then each ConfigMap's accepted (current or last good) version. */
  applied(): readonly PolicySource[];
}

export class ConfigMapPolicies implements PolicySources {
  /** The enforced set. Empty until the first load. */
  policies: readonly PolicySpec[] = [];
  /** True once a load has completed: `/readyz` waits for it. */
  loaded = false;
  /** Per ConfigMap id (`ns/name`), what the last load decided. */
  readonly states = new Map<string, ConfigMapState>();
  private accepted = new Map<string, readonly PolicySource[]>();
  private watcher: { stop(): void } | undefined;
  private running: Promise<void> | undefined;
  private dirty = false;

  readonly namespace: string;
  readonly files: readonly PolicySource[];

  constructor(private readonly o: ConfigMapPoliciesOptions) {
    this.namespace = o.namespace;
    this.files = o.files ?? [];
  }

  applied(): readonly PolicySource[] {
    // Map order is resolveLastGood's id order, so the set reads the same on every call.
    return [...this.files, ...[...this.accepted.values()].flat()];
  }

  /** Watches ConfigMaps and loads once; resolves after that first load. */
  async start(): Promise<void> {
    this.watcher = this.o.client.watch('ConfigMap', (e) => this.onEvent(e));
    this.schedule();
    await this.settled();
  }

  stop(): void {
    this.watcher?.stop();
    this.watcher = undefined;
  }

  /** Resolves once no reload is running or queued (tests step the cluster, then await this). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private onEvent(e: WatchEvent): void {
    if ((e.object.metadata.namespace ?? 'default') !== this.o.namespace) return;
    this.schedule();
  }

  /** Reloads soon (e.g. on becoming the leader, to annotate what a follower only loaded). */
  refresh(): void {
    this.schedule();
  }

  /** Coalesces bursts of changes: one reload runs at a time, and one more follows if anything changed meanwhile. */
  private schedule(): void {
    this.dirty = true;
    if (this.running) return;
    this.running = (async () => {
      try {
        while (this.dirty) {
          this.dirty = false;
          await this.reload().catch((err: unknown) => this.o.logger?.error('policy reload failed; the last good policies stay in force', { err: String(err) }));
        }
      } finally {
        this.running = undefined;
      }
    })();
  }

  /** One reload: list, resolve, publish status. Exposed for callers that poll instead of watching. */
  async reload(): Promise<void> {
    const all = await this.o.client.list<ConfigMap>('ConfigMap', this.o.namespace);
    const labelled = all.filter((cm) => cm.metadata.labels?.[LABEL_POLICY_CONFIGMAP] !== undefined);
    const bundles: PolicyBundle[] = labelled.map((cm) => ({ id: idOf(cm), sources: policySourcesFromConfigMaps([cm]) }));
    const r = resolveLastGood(this.files, bundles, this.accepted, this.o.clock.now());
    const changed = !sameAccepted(this.accepted, r.accepted);
    this.accepted = r.accepted;
    if (r.policies && (changed || !this.loaded)) {
      this.policies = r.policies;
      this.o.logger?.info('policies loaded', { policies: r.policies.map((p) => p.name), configMaps: [...r.accepted.keys()] });
      this.o.onChange?.(r.policies);
    }
    this.loaded = true;
    const present = new Set(bundles.map((b) => b.id));
    for (const id of this.states.keys()) if (!present.has(id)) this.states.delete(id);
    for (const cm of labelled) await this.report(cm, r.rejected.get(idOf(cm)) ?? []);
  }

  private async report(cm: ConfigMap, rejected: LocatedError[]): Promise<void> {
    const id = idOf(cm);
    const status = rejected.length ? summariseErrors(rejected) : STATUS_VALID;
    const before = this.states.get(id);
    this.states.set(id, { status, rejected });
    if (!(this.o.reporting?.() ?? true)) return;
    const object = { kind: 'ConfigMap', name: cm.metadata.name, namespace: this.o.namespace, ...(cm.metadata.uid && { uid: cm.metadata.uid }) };
    if (rejected.length && before?.status !== status) {
      this.o.recorder?.publish({ type: 'Warning', reason: REASON_POLICY_INVALID, message: invalidEventMessage(rejected), object });
      this.o.logger?.warn('policy refused', { configMap: id, errors: status });
    } else if (!rejected.length && before !== undefined && before.status !== STATUS_VALID) {
      this.o.recorder?.publish({ type: 'Normal', reason: REASON_POLICY_VALID, message: 'policy applied', object });
    }
    if (cm.metadata.annotations?.[ANNOTATION_POLICY_STATUS] === status) return;
    try {
      // The precondition keeps a status from landing on a newer version than the one it describes;
      // that newer version's own watch event brings another reload.
      await this.o.client.patch({ kind: 'ConfigMap', name: cm.metadata.name, namespace: this.o.namespace },
        { metadata: { annotations: { [ANNOTATION_POLICY_STATUS]: status } } },
        cm.metadata.resourceVersion ? { resourceVersion: cm.metadata.resourceVersion } : undefined);
    } catch (err) {
      if (!isApiError(err, 409) && !isApiError(err, 404)) throw err;
    }
  }
}

const idOf = (cm: ConfigMap) => `${cm.metadata.namespace ?? 'default'}/${cm.metadata.name}`;

function sameAccepted(a: ReadonlyMap<string, readonly PolicySource[]>, b: ReadonlyMap<string, readonly PolicySource[]>): boolean {
  if (a.size !== b.size) return false;
  for (const [id, xs] of a) {
    const ys = b.get(id);
    if (!ys || ys.length !== xs.length || xs.some((x, i) => x.fileName !== ys[i].fileName || x.text !== ys[i].text)) return false;
  }
  return true;
}
