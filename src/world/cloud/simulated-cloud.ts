// SPDX-License-Identifier: Apache-2.0
// A cloud in memory (what the fake provider and KWOK are for Karpenter): launches the cheapest
// compatible offering, moves instances pending → running → terminating → terminated on the
// injected clock, and lets tests and scenarios inject launch failures, capacity shortages and
// interruption notices. Every state change is derived from timestamps, so stepping the clock
// is all it takes; nothing runs in the background.
import type { Clock } from '../../core/clock.js';
import type { NodeClaim } from '../../core/cluster/types.js';
import { loadCatalog } from './catalog.js';
import {
  CloudError,
  type CapacityType,
  type CloudProvider,
  type Instance,
  type InstanceChange,
  type InstanceType,
  type Offering,
} from './provider.js';
import { insufficientResource, parseResourceList } from '../../core/cluster/resources.js';
import { incompatibility, offeringCompatible } from './offering-fit.js';

/** Change-log entries kept after a trim by default (changesSince); twice as many trigger one. */
export const CHANGE_LOG_KEPT = 4096;

export const PROVIDER_ID_SCHEME = 'kpol-sim://';
export const DEFAULT_LAUNCH_LATENCY_MS = 30_000;
export const DEFAULT_TERMINATION_DELAY_MS = 20_000;
/** How long an offering that hit InsufficientCapacity stays unavailable (Karpenter AWS's ICE cache TTL). */
export const DEFAULT_UNAVAILABLE_OFFERING_TTL_MS = 3 * 60_000;
/** EC2's spot interruption warning. */
export const SPOT_INTERRUPTION_NOTICE_MS = 2 * 60_000;

/** The notices Karpenter's AWS interruption controller acts on (its SQS message kinds). */
export type InterruptionKind =
  'SpotInterruption' | 'ScheduledChange' | 'InstanceStopping' | 'InstanceTerminating' | 'RebalanceRecommendation';

export interface InterruptionNotice {
  providerID: string;
  kind: InterruptionKind;
  /** When the notice is delivered. */
  at: number;
  /** When the cloud reclaims the instance; undefined for a rebalance recommendation (advice only). */
  deadline?: number;
}

export interface CloudCall {
  at: number;
  op: 'create' | 'get' | 'delete' | 'list';
  args: unknown[];
  /** The returned instance (or list, or undefined), or `{ error, insufficientCapacity }` when the call threw. */
  result: unknown;
}

export interface SimulatedCloudOptions {
  clock: Clock;
  /** Default: loadCatalog(). */
  instanceTypes?: InstanceType[];
  /** pending → running; a function may vary it per instance type. Default 30 s. */
  launchLatencyMs?: number | ((it: InstanceType) => number);
  /** terminating → terminated. Default 20 s. */
  terminationDelayMs?: number;
  unavailableOfferingTtlMs?: number;
  /**
   * A spot interruption also marks its offering unavailable, as Karpenter's AWS interruption controller does. Default
   * true.
   */
  spotInterruptionMarksUnavailable?: boolean;
  /**
   * The number the first instance id counts up from (default 0: `i-…001`, `i-…002`, …). A cloud
   * that outlives no process must not hand out an id a previous process gave a machine: on a
   * real cluster the caller starts from the wall clock.
   */
  instanceIdStart?: number;
  /** Change-log entries kept after a trim (changesSince). Default CHANGE_LOG_KEPT; tests make it small. */
  changeLogKept?: number;
}

/** Decides whether one create fails: an error to throw, or undefined to proceed. */
export type LaunchFailure = (nodeClaim: NodeClaim) => CloudError | undefined;

interface InstanceRecord {
  providerID: string;
  it: InstanceType;
  offering: Offering;
  launchedAt: number;
  runningAt: number;
  terminatingAt?: number;
  terminatedAt?: number;
}

const offeringKey = (instanceType: string, zone: string, capacityType: CapacityType): string =>
  `${instanceType}/${zone}/${capacityType}`;

/** `kpol-sim:///us-west-2a/i-…` → zone and instance id; undefined for another scheme. */
export function parseProviderID(providerID: string): { zone: string; instanceID: string } | undefined {
  const m = /^kpol-sim:\/\/\/([^/]+)\/(i-[0-9a-f]+)$/.exec(providerID);
  return m === null ? undefined : { zone: m[1], instanceID: m[2] };
}

export class SimulatedCloud implements CloudProvider {
  /** Every create/get/delete/list, in order, for tests. */
  readonly calls: CloudCall[] = [];
  private readonly clock: Clock;
  private readonly types: InstanceType[];
  private readonly opts: Required<
    Omit<SimulatedCloudOptions, 'clock' | 'instanceTypes' | 'instanceIdStart' | 'changeLogKept'>
  >;
  private readonly instances = new Map<string, InstanceRecord>();
  /**
   * The records not known to be terminated, in the order of `instances`: what a listing reads. A
   * terminated instance stays terminated (its time only moves earlier, the clock only forward), so
   * a month of replacements does not make every listing read every machine ever launched.
   */
  private readonly unterminated = new Set<InstanceRecord>();
  /** The instant the set was last pruned at; an earlier clock (a non-monotonic one) rebuilds it. */
  private prunedAt = -Infinity;
  private readonly unavailableUntil = new Map<string, number>();
  private readonly exhausted: ((it: InstanceType, o: Offering) => boolean)[] = [];
  private readonly scheduled: InterruptionNotice[] = [];
  private readonly queue: InterruptionNotice[] = [];
  private counter = 0;
  /** Bumped on every launch, termination, adoption and scheduled notice; see changeStamp(). */
  private revision = 0;
  /**
   * Every launch, adoption and termination, with the instants the instance's state changes at:
   * what changesSince() hands out. A few entries per machine launched or terminated.
   */
  private changeLog: InstanceChange[] = [];
  private readonly logKept: number;
  /** The cursor of changeLog[0]: the entries before it were dropped (changesSince). */
  private logBase = 0;
  /** Dropped entries whose instant had not come when they were dropped, for a reader behind the log. */
  private droppedLater: InstanceChange[] = [];
  /** Future instants at which an instance changes state or a notice falls due, and how many have passed. */
  private transitions: number[] = [];
  private passedTransitions = 0;
  private view: { from: number; until: number; types: InstanceType[] } | undefined;
  private failNext: { count: number; error: CloudError } = { count: 0, error: new CloudError('') };
  private failWhen: LaunchFailure | undefined;

  constructor(options: SimulatedCloudOptions) {
    this.clock = options.clock;
    this.types = options.instanceTypes ?? loadCatalog();
    this.counter = options.instanceIdStart ?? 0;
    this.logKept = options.changeLogKept ?? CHANGE_LOG_KEPT;
    this.opts = {
      launchLatencyMs: options.launchLatencyMs ?? DEFAULT_LAUNCH_LATENCY_MS,
      terminationDelayMs: options.terminationDelayMs ?? DEFAULT_TERMINATION_DELAY_MS,
      unavailableOfferingTtlMs: options.unavailableOfferingTtlMs ?? DEFAULT_UNAVAILABLE_OFFERING_TTL_MS,
      spotInterruptionMarksUnavailable: options.spotInterruptionMarksUnavailable ?? true,
    };
  }

  // ---- CloudProvider ----

  /**
   * The catalog with `available` false for offerings marked unavailable (ICE, spot interruption) until their TTL
   * passes.
   */
  instanceTypes(): readonly InstanceType[] {
    this.deliverScheduled();
    const now = this.clock.now();
    // The same array (so callers' per-type caches hold) until an offering's availability changes.
    if (this.view !== undefined && now >= this.view.from && now < this.view.until) return this.view.types;
    let until = Number.POSITIVE_INFINITY;
    for (const t of this.unavailableUntil.values()) if (t > now) until = Math.min(until, t);
    const types = this.types.map((it) => ({
      ...it,
      offerings: it.offerings.map((o) => ({ ...o, available: this.offeringAvailable(it, o, now) })),
    }));
    this.view = { from: now, until, types };
    return types;
  }

  async create(nodeClaim: NodeClaim): Promise<Instance> {
    return this.logged('create', [nodeClaim.metadata.name], () => this.launch(nodeClaim));
  }

  async get(providerID: string): Promise<Instance | undefined> {
    return this.logged('get', [providerID], () => {
      this.deliverScheduled();
      const rec = this.instances.get(providerID);
      if (rec === undefined) return undefined;
      const inst = this.snapshot(rec);
      return inst.state === 'terminated' ? undefined : inst;
    });
  }

  /**
   * Starts termination (terminating now, terminated after the termination delay). Idempotent; an unknown or terminated
   * instance is a no-op.
   */
  async delete(providerID: string): Promise<void> {
    this.logged('delete', [providerID], () => {
      this.deliverScheduled();
      const rec = this.instances.get(providerID);
      if (rec === undefined) return 'not-found';
      this.terminate(rec, this.clock.now());
      return this.snapshot(rec).state;
    });
  }

  changeStamp(): string {
    const now = this.clock.now();
    if (this.transitions.some((t) => t <= now)) {
      const left = this.transitions.filter((t) => t > now);
      this.passedTransitions += this.transitions.length - left.length;
      this.transitions = left;
    }
    return `${this.revision}/${this.passedTransitions}`;
  }

  changesSince(cursor: number): { changes: readonly InstanceChange[]; cursor: number; whole?: true } {
    const head = this.logBase + this.changeLog.length;
    if (cursor >= this.logBase) return { changes: this.changeLog.slice(cursor - this.logBase), cursor: head };
    // Behind what is kept: the reader reads every instance now; the changes still to come are all here.
    const now = this.clock.now();
    const later = this.droppedLater.filter((c) => c.at > now);
    return { changes: [...later, ...this.changeLog], cursor: head, whole: true };
  }

  /**
   * Records a change now and the instants at which it takes effect later; with an instance, that
   * instance's state changes now and at those instants (changesSince).
   */
  private changed(providerID: string | undefined, ...later: number[]): void {
    this.revision++;
    const now = this.clock.now();
    for (const t of later) if (t > now) this.transitions.push(t);
    if (providerID === undefined) return;
    this.changeLog.push({ providerID, at: now });
    for (const t of later) this.changeLog.push({ providerID, at: t });
    if (this.changeLog.length >= 2 * this.logKept) this.trimChangeLog(now);
  }

  /**
   * Drops all but the newest `logKept` entries, so that a month of launches does not keep
   * every one: a reader that calls each tick is never that far behind, and one that is gets
   * `whole` (read everything) with the dropped changes still to come.
   */
  private trimChangeLog(now: number): void {
    const cut = this.changeLog.length - this.logKept;
    const dropped = this.changeLog.slice(0, cut);
    this.droppedLater = [...this.droppedLater, ...dropped].filter((c) => c.at > now);
    this.changeLog = this.changeLog.slice(cut);
    this.logBase += cut;
  }

  describer(): (providerID: string) => Instance | undefined {
    this.deliverScheduled();
    // A listing holds each id's latest record (a reused id rebuilds the set), unless terminated.
    return (providerID) => {
      const rec = this.instances.get(providerID);
      if (rec === undefined) return undefined;
      const inst = this.snapshot(rec);
      return inst.state === 'terminated' ? undefined : inst;
    };
  }

  async list(): Promise<Instance[]> {
    return this.logged('list', [], () => {
      this.deliverScheduled();
      return [...this.current()].map((r) => this.snapshot(r)).filter((i) => i.state !== 'terminated');
    });
  }

  // ---- failure injection ----

  /** The next `count` creates throw `error` (default: a generic launch failure). */
  failNextCreates(count: number, error: CloudError = new CloudError('simulated launch failure')): void {
    this.failNext = { count, error };
  }

  /** Every create asks `failure` first (undefined clears it). */
  failCreatesWhen(failure: LaunchFailure | undefined): void {
    this.failWhen = failure;
  }

  /**
   * Offerings matching `pred` have no capacity until restoreCapacity(): a create that reaches one
   * marks it unavailable (for the ICE TTL) and tries the next cheapest, as a fleet request does.
   */
  exhaust(pred: (it: InstanceType, o: Offering) => boolean): void {
    this.exhausted.push(pred);
  }

  restoreCapacity(): void {
    this.exhausted.length = 0;
  }

  /** Marks one offering unavailable for `ttlMs` (default: the ICE TTL). */
  markUnavailable(
    instanceType: string,
    zone: string,
    capacityType: CapacityType,
    ttlMs = this.opts.unavailableOfferingTtlMs,
  ): void {
    this.unavailableUntil.set(offeringKey(instanceType, zone, capacityType), this.clock.now() + ttlMs);
    this.view = undefined;
  }

  // ---- interruptions ----

  /**
   * Delivers an interruption notice now. Spot: reclaimed after `noticeMs` (default 2 min).
   * ScheduledChange: reclaimed after `noticeMs` (default 2 min; pass the maintenance time).
   * InstanceStopping/InstanceTerminating: the instance is already going (reclaimed now).
   * RebalanceRecommendation: advice only.
   */
  interrupt(providerID: string, kind: InterruptionKind = 'SpotInterruption', noticeMs?: number): InterruptionNotice {
    return this.scheduleInterruption(providerID, this.clock.now(), kind, noticeMs);
  }

  /** An interruption notice delivered once the clock reaches `at`. */
  scheduleInterruption(
    providerID: string,
    at: number,
    kind: InterruptionKind = 'SpotInterruption',
    noticeMs?: number,
  ): InterruptionNotice {
    if (!this.instances.has(providerID)) throw new Error(`no instance ${providerID}`);
    const lead =
      kind === 'InstanceStopping' || kind === 'InstanceTerminating' ? 0 : (noticeMs ?? SPOT_INTERRUPTION_NOTICE_MS);
    const notice: InterruptionNotice = {
      providerID,
      kind,
      at,
      ...(kind === 'RebalanceRecommendation' ? {} : { deadline: at + lead }),
    };
    this.scheduled.push(notice);
    this.changed(undefined, at);
    this.deliverScheduled();
    return notice;
  }

  /**
   * Delivered notices not yet received, oldest first; each is handed out once (a queue, like Karpenter's SQS queue).
   */
  receiveInterruptions(): InterruptionNotice[] {
    this.deliverScheduled();
    return this.queue.splice(0);
  }

  // ---- inspection ----

  /** Pending or running instances that no NodeClaim's status.providerID names (leaked launches). */
  orphans(nodeClaims: readonly NodeClaim[]): Instance[] {
    this.deliverScheduled();
    const known = new Set(nodeClaims.map((nc) => nc.status?.providerID).filter((id): id is string => id !== undefined));
    return [...this.current()]
      .map((r) => this.snapshot(r))
      .filter((i) => (i.state === 'pending' || i.state === 'running') && !known.has(i.providerID));
  }

  /** USD per hour of every instance not yet terminated (billing runs until then). */
  costPerHour(): number {
    this.deliverScheduled();
    let sum = 0;
    for (const r of this.current()) if (this.snapshot(r).state !== 'terminated') sum += r.offering.price;
    return sum;
  }

  clearCalls(): void {
    this.calls.length = 0;
  }

  // ---- internals ----

  /** The records not yet terminated, in launch order (pruned of those terminated since). */
  private current(): ReadonlySet<InstanceRecord> {
    const now = this.clock.now();
    if (now < this.prunedAt) {
      this.unterminated.clear();
      for (const r of this.instances.values()) this.unterminated.add(r);
    }
    this.prunedAt = now;
    for (const r of this.unterminated)
      if (r.terminatedAt !== undefined && now >= r.terminatedAt) this.unterminated.delete(r);
    return this.unterminated;
  }

  /** A new record, listed from now on. */
  private record(rec: InstanceRecord): void {
    const replaced = this.instances.get(rec.providerID);
    this.instances.set(rec.providerID, rec);
    if (replaced === undefined) this.unterminated.add(rec);
    else this.prunedAt = Infinity; // a reused id keeps its place in `instances`: the next listing rebuilds the set
  }

  /**
   * Takes over machines that already exist (a snapshot of a real cluster being simulated): each
   * launched NodeClaim's providerID becomes a running instance of its labelled type, zone and
   * capacity type. Unknown types or offerings get the catalog's closest match by name, else are
   * skipped (returned) so the caller can report them.
   */
  adopt(nodeClaims: readonly NodeClaim[]): NodeClaim[] {
    const skipped: NodeClaim[] = [];
    const now = this.clock.now();
    for (const nc of nodeClaims) {
      const providerID = nc.status?.providerID;
      if (!providerID || this.instances.has(providerID)) continue;
      const labels = nc.metadata.labels ?? {};
      const it = this.types.find((t) => t.name === labels['node.kubernetes.io/instance-type']);
      const o =
        it?.offerings.find(
          (x) =>
            x.zone === labels['topology.kubernetes.io/zone'] && x.capacityType === labels['karpenter.sh/capacity-type'],
        ) ?? it?.offerings.find((x) => x.capacityType === labels['karpenter.sh/capacity-type']);
      if (!it || !o) {
        skipped.push(nc);
        continue;
      }
      const launchedAt = Date.parse(nc.metadata.creationTimestamp ?? '') || now;
      // Never hand out an adopted machine's id again.
      const n = parseInt(parseProviderID(providerID)?.instanceID.slice(2) ?? '', 16);
      if (Number.isSafeInteger(n)) this.counter = Math.max(this.counter, n);
      this.record({
        providerID,
        it,
        offering: o,
        launchedAt: Math.min(launchedAt, now),
        runningAt: Math.min(launchedAt, now),
      });
      this.changed(providerID);
    }
    return skipped;
  }

  private launch(nodeClaim: NodeClaim): Instance {
    if (this.failNext.count > 0) {
      this.failNext.count--;
      throw this.failNext.error;
    }
    const injected = this.failWhen?.(nodeClaim);
    if (injected !== undefined) throw injected;

    const now = this.clock.now();
    const reqs = nodeClaim.spec.requirements ?? [];
    const requests = nodeClaim.spec.resources?.requests ?? {};
    const candidates: { it: InstanceType; o: Offering; rank: number }[] = [];
    this.types.forEach((it, i) => {
      if (incompatibility(reqs, it) !== undefined || !fits(requests, it)) return;
      it.offerings.forEach((o, j) => {
        if (offeringCompatible(reqs, it, o)) candidates.push({ it, o, rank: i * 1000 + j });
      });
    });
    if (candidates.length === 0)
      throw new CloudError(
        `no instance type offering satisfies the requirements and requests of NodeClaim ${nodeClaim.metadata.name}`,
      );
    candidates.sort((a, b) => a.o.price - b.o.price || a.rank - b.rank);
    for (const { it, o } of candidates) {
      if (!this.offeringAvailable(it, o, now)) continue;
      if (this.exhausted.some((pred) => pred(it, o))) {
        this.markUnavailable(it.name, o.zone, o.capacityType);
        continue;
      }
      const id = `i-${(++this.counter).toString(16).padStart(17, '0')}`;
      const providerID = `${PROVIDER_ID_SCHEME}/${o.zone}/${id}`;
      const latency =
        typeof this.opts.launchLatencyMs === 'function' ? this.opts.launchLatencyMs(it) : this.opts.launchLatencyMs;
      const rec: InstanceRecord = { providerID, it, offering: o, launchedAt: now, runningAt: now + latency };
      this.record(rec);
      this.changed(providerID, rec.runningAt);
      return this.snapshot(rec);
    }
    throw new CloudError(
      `insufficient capacity: all ${candidates.length} compatible offerings for ` +
        `NodeClaim ${nodeClaim.metadata.name} are unavailable`,
      true,
    );
  }

  private offeringAvailable(it: InstanceType, o: Offering, now: number): boolean {
    if (!o.available) return false;
    const until = this.unavailableUntil.get(offeringKey(it.name, o.zone, o.capacityType));
    return until === undefined || now >= until;
  }

  private terminate(rec: InstanceRecord, at: number): void {
    if (rec.terminatingAt !== undefined && rec.terminatingAt <= at) return;
    rec.terminatingAt = at;
    rec.terminatedAt = at + this.opts.terminationDelayMs;
    this.changed(rec.providerID, rec.terminatingAt, rec.terminatedAt);
  }

  private deliverScheduled(): void {
    const now = this.clock.now();
    const due = this.scheduled.filter((n) => n.at <= now).sort((a, b) => a.at - b.at);
    if (due.length === 0) return;
    const remaining = this.scheduled.filter((n) => n.at > now);
    this.scheduled.splice(0, this.scheduled.length, ...remaining);
    for (const n of due) {
      this.queue.push(n);
      const rec = this.instances.get(n.providerID);
      if (rec === undefined) continue;
      if (n.deadline !== undefined) this.terminate(rec, n.deadline);
      if (
        n.kind === 'SpotInterruption' &&
        rec.offering.capacityType === 'spot' &&
        this.opts.spotInterruptionMarksUnavailable
      ) {
        this.unavailableUntil.set(
          offeringKey(rec.it.name, rec.offering.zone, 'spot'),
          n.at + this.opts.unavailableOfferingTtlMs,
        );
        this.view = undefined;
      }
    }
  }

  private snapshot(rec: InstanceRecord): Instance {
    const now = this.clock.now();
    let state: Instance['state'] = now >= rec.runningAt ? 'running' : 'pending';
    if (rec.terminatingAt !== undefined && now >= rec.terminatingAt) state = 'terminating';
    if (rec.terminatedAt !== undefined && now >= rec.terminatedAt) state = 'terminated';
    return {
      providerID: rec.providerID,
      instanceType: rec.it.name,
      zone: rec.offering.zone,
      capacityType: rec.offering.capacityType,
      state,
      launchedAt: rec.launchedAt,
      price: rec.offering.price,
    };
  }

  private logged<T>(op: CloudCall['op'], args: unknown[], fn: () => T): T {
    const at = this.clock.now();
    try {
      const result = fn();
      this.calls.push({ at, op, args, result });
      return result;
    } catch (e) {
      this.calls.push({
        at,
        op,
        args,
        result: {
          error: (e as Error).message,
          insufficientCapacity: e instanceof CloudError && e.insufficientCapacity,
        },
      });
      throw e;
    }
  }
}

/** Whether the NodeClaim's resource requests fit the type's allocatable resources. */
function fits(requests: Record<string, string>, it: InstanceType): boolean {
  return insufficientResource(parseResourceList(requests), it.capacity) === undefined;
}
