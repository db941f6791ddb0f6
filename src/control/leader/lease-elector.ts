// SPDX-License-Identifier: Apache-2.0
// Leader election on a coordination.k8s.io/v1 Lease, with client-go's rules:
// - a candidate takes the lease only when it is free (no holder) or expired, and "expired" is
//   judged on the candidate's own clock: a lease counts from when this candidate last saw it
//   change, never from the holder's timestamps (clocks of two machines need not agree);
// - every write carries the resourceVersion that was read, so of two candidates racing for one
//   lease exactly one write succeeds (the other gets 409 and is not leader);
// - the leader renews every retry period and stops acting once it has not renewed for the renew
//   deadline, which is shorter than the lease duration, so it has stopped before anyone else
//   can see the lease expire;
// - graceful shutdown clears the holder so the next candidate takes over at once.
// Why our own: @kubernetes/client-node (2.0.1) has no leader election, and this one runs on the
// ClusterClient interface, so the same code elects on a real API server and in simulations.
import { isApiError, type ClusterClient } from '../../core/cluster/client.js';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/observe/logger.js';
import { microTime, newLease, recordKey, type Lease, type LeaseSpec } from './lease-record.js';

export interface LeaderElectionConfig {
  namespace: string;
  /** The Lease's name, e.g. `kpol-controller`. */
  name: string;
  /** This replica's identity (pod name plus a random suffix, as client-go suggests). */
  identity: string;
  /** client-go defaults: 15 s, 10 s, 2 s. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

export interface LeaderElectorOptions extends LeaderElectionConfig {
  client: ClusterClient;
  clock: Clock;
  logger?: Logger;
  onStartedLeading?: () => void;
  onStoppedLeading?: () => void;
  /** Waits between attempts in `run()`; real timers by default. */
  wait?: (ms: number) => Promise<void>;
}

export const DEFAULT_LEASE_DURATION_MS = 15_000;
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
export const DEFAULT_RETRY_PERIOD_MS = 2_000;

/** The same checks client-go makes, as messages for a usage error. */
export function leaderElectionProblems(
  c: Pick<LeaderElectionConfig, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs' | 'identity'>,
): string[] {
  const lease = c.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
  const renew = c.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
  const retry = c.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
  const out: string[] = [];
  if (!(retry > 0)) out.push('the retry period must be positive');
  if (!(renew > retry)) out.push('the renew deadline must be longer than the retry period');
  if (!(lease > renew)) out.push('the lease duration must be longer than the renew deadline');
  if (!c.identity) out.push('the identity must not be empty');
  return out;
}

export class LeaderElector {
  private readonly leaseMs: number;
  private readonly renewMs: number;
  private readonly retryMs: number;
  private observedKey = '';
  private observedAt = 0;
  private observed: LeaseSpec | undefined;
  /** When this replica last wrote the lease as its holder; undefined when it does not hold it. */
  private renewedAt: number | undefined;
  private wasLeader = false;
  private stopped = false;
  private wake: (() => void) | undefined;

  constructor(private readonly o: LeaderElectorOptions) {
    const problems = leaderElectionProblems(o);
    if (problems.length) throw new Error(`leader election: ${problems.join('; ')}`);
    this.leaseMs = o.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    this.renewMs = o.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    this.retryMs = o.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
  }

  get identity(): string {
    return this.o.identity;
  }

  /** True while this replica holds the lease and renewed it within the renew deadline. */
  isLeader(): boolean {
    return this.renewedAt !== undefined && this.o.clock.now() - this.renewedAt < this.renewMs;
  }

  /** The holder this replica last saw ('' when free). */
  observedHolder(): string {
    return this.observed?.holderIdentity ?? '';
  }

  /**
   * One attempt to acquire or renew (client-go's `tryAcquireOrRenew`); returns whether this replica leads afterwards.
   */
  async step(): Promise<boolean> {
    try {
      const ok = await this.tryAcquireOrRenew();
      if (!ok && this.renewedAt !== undefined && this.observedHolder() !== this.o.identity) this.renewedAt = undefined;
    } catch (err) {
      this.o.logger?.warn('leader election: lease request failed', { lease: this.o.name, err: String(err) });
    }
    this.notify();
    return this.isLeader();
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.o.clock.now();
    const key = { kind: 'Lease' as const, name: this.o.name, namespace: this.o.namespace };
    const current = await this.o.client.get<Lease>(key);
    if (!current) {
      const spec = this.spec(undefined, now);
      try {
        const created = await this.o.client.create(newLease(this.o.namespace, this.o.name, spec));
        this.took(created.spec, now);
        return true;
      } catch (err) {
        if (isApiError(err, 409)) return false; // another candidate created it first
        throw err;
      }
    }
    const seen = recordKey(current.spec);
    if (seen !== this.observedKey) {
      this.observedKey = seen;
      this.observedAt = now;
      this.observed = current.spec;
    }
    const holder = current.spec?.holderIdentity ?? '';
    const mine = holder === this.o.identity;
    if (holder !== '' && !mine && now < this.observedAt + this.leaseMs) return false;
    // A lease in our name that this process never wrote (a restart that kept its identity) is
    // treated like anyone else's: the previous process may still be acting until it expires.
    if (mine && this.renewedAt === undefined && now < this.observedAt + this.leaseMs) return false;
    try {
      const updated = await this.o.client.update<Lease>({ ...current, spec: this.spec(current.spec, now) });
      this.took(updated.spec, now);
      return true;
    } catch (err) {
      if (isApiError(err, 409)) {
        this.o.logger?.info('leader election: lost the race for the lease', {
          lease: this.o.name,
          identity: this.o.identity,
        });
        return false;
      }
      throw err;
    }
  }

  private spec(old: LeaseSpec | undefined, now: number): LeaseSpec {
    // As client-go: a change of holder (from another replica or from nobody) is a transition.
    const sameHolder = old?.holderIdentity === this.o.identity;
    return {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: Math.ceil(this.leaseMs / 1000),
      acquireTime: sameHolder && old?.acquireTime ? old.acquireTime : microTime(now),
      renewTime: microTime(now),
      leaseTransitions: (old?.leaseTransitions ?? 0) + (old && !sameHolder ? 1 : 0),
    };
  }

  private took(spec: LeaseSpec | undefined, now: number): void {
    this.observedKey = recordKey(spec);
    this.observedAt = now;
    this.observed = spec;
    this.renewedAt = now;
  }

  private notify(): void {
    const leading = this.isLeader();
    if (leading === this.wasLeader) return;
    this.wasLeader = leading;
    this.o.logger?.info(leading ? 'leader election: started leading' : 'leader election: stopped leading', {
      lease: this.o.name,
      identity: this.o.identity,
    });
    if (leading) this.o.onStartedLeading?.();
    else this.o.onStoppedLeading?.();
  }

  /** Gives the lease up (graceful shutdown): clears the holder so the next candidate takes over at once. */
  async release(): Promise<void> {
    if (!this.isLeader()) return;
    const key = { kind: 'Lease' as const, name: this.o.name, namespace: this.o.namespace };
    this.renewedAt = undefined;
    try {
      const current = await this.o.client.get<Lease>(key);
      if (current?.spec?.holderIdentity !== this.o.identity) return;
      const now = this.o.clock.now();
      await this.o.client.update<Lease>({
        ...current,
        spec: {
          ...current.spec,
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: microTime(now),
          renewTime: microTime(now),
        },
      });
    } catch (err) {
      this.o.logger?.warn('leader election: could not release the lease; it expires after the lease duration', {
        lease: this.o.name,
        err: String(err),
      });
    } finally {
      this.notify();
    }
  }

  /** Steps every retry period until `stop()`, then releases the lease. */
  async run(): Promise<void> {
    const wait =
      this.o.wait ??
      ((ms: number) =>
        new Promise<void>((resolve) => {
          const t = setTimeout(resolve, ms);
          this.wake = () => {
            clearTimeout(t);
            resolve();
          };
        }));
    while (!this.stopped) {
      await this.step();
      if (this.stopped) break;
      await wait(this.retryMs);
    }
    await this.release();
  }

  /** Ends `run()` at the next opportunity (it then releases the lease). */
  stop(): void {
    this.stopped = true;
    this.wake?.();
  }
}
