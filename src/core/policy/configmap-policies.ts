// SPDX-License-Identifier: Apache-2.0
// Policies stored in ConfigMaps, hot-reloaded. Every ConfigMap labelled `kpol.dev/policy` in the
// controller's namespace contributes its `*.kpol` keys; a change to any of them reloads the
// whole set (checked together with `--policy` files), keeping each ConfigMap's last good
// version when its current one is refused (see last-good.ts). A version is refused when it
// fails check, or when the set with it cannot be evaluated over the cluster (trial-eval.ts). A
// refused ConfigMap gets a Warning Event and its `kpol.dev/status` annotation names the first
// errors; an accepted one is annotated `valid`. A policy in force whose evaluation fails later
// in a tick is reported the same way (`evaluationFailed`) until a tick evaluates again.
import type { PolicySpec } from '../../../rules/model.js';
import { isApiError, type ClusterClient, type WatchEvent } from '../cluster/client.js';
import { LABEL_POLICY_CONFIGMAP, type ConfigMap } from '../cluster/types.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../observe/logger.js';
import type { EventRecorder } from '../observe/recorder.js';
import {
  ANNOTATION_POLICY_STATUS,
  REASON_POLICY_EVALUATION_FAILED,
  REASON_POLICY_INVALID,
  REASON_POLICY_VALID,
  STATUS_VALID,
  evaluationFailedEventMessage,
  invalidEventMessage,
  summariseErrors,
} from './configmap-status.js';
import { keepUnchanged } from './unchanged-policies.js';
import { resolveLastGood, type LocatedError, type PolicyBundle, type Resolution } from './last-good.js';
import { policySourcesFromConfigMaps, type PolicySource } from './load.js';
import { locateFailure, trialEvaluate, type EvaluateAt, type TrialFailure } from './trial-eval.js';

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
  /**
   * Evaluates a policy set over the cluster as the controller would: a changed set is tried
   * with it before it replaces the one in force (trial-eval.ts). Without it, check alone decides.
   */
  evaluateAt?: EvaluateAt;
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
  /**
   * The sources the controller enforces now: the files, then each ConfigMap's accepted (current or last good) version.
   */
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
  /** Per ConfigMap id, the last version read: a status written between reloads patches it. */
  private configMaps = new Map<string, ConfigMap>();
  /** ConfigMaps whose version in force failed to evaluate in a tick, until a tick evaluates again. */
  private failing = new Map<string, { sources: readonly PolicySource[]; key: string; errors: LocatedError[] }>();
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
          await this.reload().catch((err: unknown) =>
            this.o.logger?.error('policy reload failed; the last good policies stay in force', { err: String(err) }),
          );
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
    const bundles: PolicyBundle[] = labelled.map((cm) => ({
      id: idOf(cm),
      sources: policySourcesFromConfigMaps([cm]),
    }));
    const r = await this.resolve(bundles);
    const changed = !sameAccepted(this.accepted, r.accepted);
    this.accepted = r.accepted;
    if (r.policies && (changed || !this.loaded)) {
      // The policies nobody changed keep their objects, and with them the evaluator's work (unchanged-policies.ts).
      const policies = keepUnchanged(this.policies, r.policies);
      this.policies = policies;
      this.o.logger?.info('policies loaded', {
        policies: policies.map((p) => p.name),
        configMaps: [...r.accepted.keys()],
      });
      this.o.onChange?.(policies);
    }
    this.loaded = true;
    const present = new Set(bundles.map((b) => b.id));
    for (const id of this.states.keys()) if (!present.has(id)) this.states.delete(id);
    // A tick failure describes the version it was seen on: a newer accepted version starts afresh.
    for (const [id, f] of this.failing) {
      if (!sameSourceList(f.sources, this.accepted.get(id) ?? [])) this.failing.delete(id);
    }
    this.configMaps = new Map(labelled.map((cm) => [idOf(cm), cm]));
    for (const cm of labelled) await this.report(cm, r.rejected.get(idOf(cm)) ?? []);
  }

  /**
   * resolveLastGood, then the trial: while the resulting set cannot be evaluated, the ConfigMap
   * holding the policy to blame goes back to its last good version (or out, if it has none) and
   * is rejected with the evaluation error. When the culprit cannot be taken out (a `--policy`
   * file, or a version already in force), no new set is formed: the one in force stays.
   */
  private async resolve(bundles: readonly PolicyBundle[]): Promise<Resolution> {
    const now = this.o.clock.now();
    let current = [...bundles];
    let r = resolveLastGood(this.files, current, this.accepted, now);
    const evaluateAt = this.o.evaluateAt;
    if (!evaluateAt || !r.policies || (this.loaded && sameAccepted(this.accepted, r.accepted))) return r;
    const rejected = new Map<string, LocatedError[]>();
    for (let round = 0; r.policies; round++) {
      const failure = await trialEvaluate(r.policies, evaluateAt, now);
      if (!failure) break;
      const file = failure.policy?.file;
      const culprit = file === undefined ? undefined : current.find((b) => holds(b.sources, file));
      if (file !== undefined && !culprit) {
        // A `--policy` file (checked and tried at start) fails now: no ConfigMap is to blame, and
        // none can fix it; the set in force stays and the failing ticks say why.
        this.o.logger?.warn('a policy file cannot be evaluated', { file, error: failure.error });
        r = { ...r, policies: undefined };
        break;
      }
      const changed = (b: PolicyBundle) => !sameSourceList(this.accepted.get(b.id) ?? [], b.sources);
      const blamed = culprit ? [culprit] : current.filter(changed);
      const movable = blamed.filter(changed);
      this.o.logger?.warn('policy set cannot be evaluated', {
        policy: failure.policy?.name ?? '',
        error: failure.error,
        configMaps: blamed.map((b) => b.id),
      });
      for (const b of movable) rejected.set(b.id, [locateFailure(failure, b.sources)]);
      if (movable.length === 0 || movable.length < blamed.length || round >= bundles.length) {
        r = { ...r, policies: undefined };
        break;
      }
      current = current.flatMap((b) => {
        if (!movable.includes(b)) return [b];
        const before = this.accepted.get(b.id);
        return before ? [{ id: b.id, sources: [...before] }] : [];
      });
      r = resolveLastGood(this.files, current, this.accepted, now);
    }
    const allRejected = new Map([...r.rejected, ...rejected]);
    if (r.policies !== undefined) return { ...r, rejected: allRejected };
    // Nothing new applies: what is accepted stays exactly what is in force.
    const inForce = new Map([...this.accepted].map(([id, sources]) => [id, [...sources]]));
    return { accepted: inForce, rejected: allRejected, policies: undefined };
  }

  /**
   * A tick could not evaluate: the ConfigMap holding the policy to blame turns from `valid` to
   * the error, with one Warning Event per distinct error (not one per tick). Returns the
   * ConfigMap id, or undefined when the policy is not from a ConfigMap (a `--policy` file).
   */
  async evaluationFailed(failure: TrialFailure): Promise<string | undefined> {
    const file = failure.policy?.file;
    const id = file === undefined ? undefined : [...this.accepted].find(([, sources]) => holds(sources, file))?.[0];
    if (id === undefined) return undefined;
    const sources = this.accepted.get(id)!;
    const key = `${failure.policy!.name}\n${failure.error}`;
    if (this.failing.get(id)?.key === key) return id;
    const errors = [locateFailure(failure, sources)];
    this.failing.set(id, { sources, key, errors });
    this.o.logger?.warn('policy in force cannot be evaluated', {
      configMap: id,
      policy: failure.policy!.name,
      error: failure.error,
    });
    const cm = this.configMaps.get(id);
    if (cm) await this.report(cm, []);
    return id;
  }

  /** A tick evaluated: ConfigMaps reported failing are valid again. */
  async evaluationSucceeded(): Promise<void> {
    if (this.failing.size === 0) return;
    const ids = [...this.failing.keys()];
    this.failing.clear();
    for (const id of ids) {
      const cm = this.configMaps.get(id);
      if (cm) await this.report(cm, []);
    }
  }

  private async report(cm: ConfigMap, rejected: LocatedError[]): Promise<void> {
    const id = idOf(cm);
    const failing = rejected.length ? undefined : this.failing.get(id)?.errors;
    const status = rejected.length ? summariseErrors(rejected) : failing ? summariseErrors(failing) : STATUS_VALID;
    const before = this.states.get(id);
    this.states.set(id, { status, rejected });
    if (!(this.o.reporting?.() ?? true)) return;
    if (before?.status !== status) this.announce(cm, status, rejected, failing, before !== undefined);
    if (cm.metadata.annotations?.[ANNOTATION_POLICY_STATUS] !== status) await this.writeStatus(cm, id, status);
  }

  /** The event for a status change: refused, failing to evaluate, or valid again. */
  private announce(
    cm: ConfigMap,
    status: string,
    rejected: LocatedError[],
    failing: LocatedError[] | undefined,
    known: boolean,
  ): void {
    const object = {
      kind: 'ConfigMap',
      name: cm.metadata.name,
      namespace: this.o.namespace,
      ...(cm.metadata.uid && { uid: cm.metadata.uid }),
    };
    if (rejected.length) {
      this.o.recorder?.publish({
        type: 'Warning',
        reason: REASON_POLICY_INVALID,
        message: invalidEventMessage(rejected),
        object,
      });
      this.o.logger?.warn('policy refused', { configMap: idOf(cm), errors: status });
    } else if (failing) {
      const message = evaluationFailedEventMessage(failing);
      this.o.recorder?.publish({ type: 'Warning', reason: REASON_POLICY_EVALUATION_FAILED, message, object });
    } else if (status === STATUS_VALID && known) {
      this.o.recorder?.publish({ type: 'Normal', reason: REASON_POLICY_VALID, message: 'policy applied', object });
    }
  }

  private async writeStatus(cm: ConfigMap, id: string, status: string): Promise<void> {
    try {
      // The precondition keeps a status from landing on a newer version than the one it describes;
      // that newer version's own watch event brings another reload.
      const key = { kind: 'ConfigMap' as const, name: cm.metadata.name, namespace: this.o.namespace };
      const patched = await this.o.client.patch<ConfigMap>(
        key,
        { metadata: { annotations: { [ANNOTATION_POLICY_STATUS]: status } } },
        cm.metadata.resourceVersion ? { resourceVersion: cm.metadata.resourceVersion } : undefined,
      );
      // A status written between reloads (a tick failure, then its recovery) patches this version next.
      if (this.configMaps.get(id) === cm && patched?.metadata) this.configMaps.set(id, patched);
    } catch (err) {
      if (!isApiError(err, 409) && !isApiError(err, 404)) throw err;
    }
  }
}

/** Whether `sources` holds the file `fileName`. */
const holds = (sources: readonly PolicySource[], fileName: string) => sources.some((s) => s.fileName === fileName);

const idOf = (cm: ConfigMap) => `${cm.metadata.namespace ?? 'default'}/${cm.metadata.name}`;

function sameSourceList(xs: readonly PolicySource[], ys: readonly PolicySource[]): boolean {
  return ys.length === xs.length && xs.every((x, i) => x.fileName === ys[i].fileName && x.text === ys[i].text);
}

function sameAccepted(
  a: ReadonlyMap<string, readonly PolicySource[]>,
  b: ReadonlyMap<string, readonly PolicySource[]>,
): boolean {
  if (a.size !== b.size) return false;
  for (const [id, xs] of a) {
    const ys = b.get(id);
    if (!ys || !sameSourceList(xs, ys)) return false;
  }
  return true;
}
