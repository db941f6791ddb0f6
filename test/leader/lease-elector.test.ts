// SPDX-License-Identifier: Apache-2.0
// Leader election with two (or three) candidates on one in-memory API server and one FakeClock:
// exactly one leads, a dead leader is replaced after the lease duration, a graceful release
// hands over at once, and no interleaving of steps, races and clock moves yields two leaders.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError, type ClusterClient } from '../../src/core/cluster/client.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import { FakeClock } from '../../src/core/clock.js';
import {
  LeaderElector,
  leaderElectionProblems,
  type LeaderElectorOptions,
} from '../../src/control/leader/lease-elector.js';
import type { Lease } from '../../src/control/leader/lease-record.js';

const NS = 'kpol-system';
const LEASE = { kind: 'Lease' as const, name: 'kpol-controller', namespace: NS };

function world(n = 2, extra: Partial<LeaderElectorOptions> = {}) {
  const clock = new FakeClock(Date.parse('2026-11-22T10:00:00Z'));
  const cluster = new MemoryCluster(clock);
  const electors = Array.from(
    { length: n },
    (_, i) =>
      new LeaderElector({ client: cluster, clock, namespace: NS, name: LEASE.name, identity: `kpol-${i}`, ...extra }),
  );
  const leaders = () => electors.filter((e) => e.isLeader()).map((e) => e.identity);
  const lease = async () => (await cluster.get<Lease>(LEASE))?.spec;
  return { clock, cluster, electors, leaders, lease };
}

describe('leader election', () => {
  it('of two candidates starting together exactly one leads, and keeps leading while it renews', async () => {
    const w = world();
    const results = await Promise.all(w.electors.map((e) => e.step()));
    expect(results.filter(Boolean)).toHaveLength(1);
    const leader = w.leaders()[0];
    for (let i = 0; i < 30; i++) {
      w.clock.advance(2000);
      await Promise.all(w.electors.map((e) => e.step()));
      expect(w.leaders()).toEqual([leader]);
    }
    expect(await w.lease()).toMatchObject({
      holderIdentity: leader,
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
      renewTime: '2026-11-22T10:01:00.000000Z',
      acquireTime: '2026-11-22T10:00:00.000000Z',
    });
  });

  it(
    'a leader that stops renewing stops acting at the renew deadline and is replaced after the ' + 'lease duration',
    async () => {
      const w = world();
      const [a, b] = w.electors;
      expect(await a.step()).toBe(true);
      const lastRenew = w.clock.now();
      let takeover: number | undefined;
      for (let t = 0; t < 40 && takeover === undefined; t++) {
        w.clock.advance(1000);
        if (await b.step()) takeover = w.clock.now();
        expect(w.leaders().length).toBeLessThanOrEqual(1);
        if (w.clock.now() - lastRenew >= 10_000) expect(a.isLeader()).toBe(false);
      }
      expect(takeover! - lastRenew).toBeGreaterThanOrEqual(15_000);
      expect(takeover! - lastRenew).toBeLessThanOrEqual(16_000);
      expect(await w.lease()).toMatchObject({ holderIdentity: 'kpol-1', leaseTransitions: 1 });
      // The old leader comes back: it sees the new holder and does not lead.
      expect(await a.step()).toBe(false);
      expect(w.leaders()).toEqual(['kpol-1']);
    },
  );

  it('graceful release hands over at once', async () => {
    const w = world();
    const [a, b] = w.electors;
    await a.step();
    expect(await b.step()).toBe(false);
    await a.release();
    expect(a.isLeader()).toBe(false);
    expect((await w.lease())?.holderIdentity).toBe('');
    expect(await b.step()).toBe(true);
    expect(await w.lease()).toMatchObject({ holderIdentity: 'kpol-1', leaseTransitions: 1 });
  });

  it('a 409 on the write means the race is lost: one of two simultaneous takeovers wins', async () => {
    const w = world(3);
    const [a, b, c] = w.electors;
    await a.step();
    await Promise.all([b.step(), c.step()]); // both observe a's lease
    w.clock.advance(15_000); // a is dead; the lease has expired for b and c
    const won = await Promise.all([b.step(), c.step()]);
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(w.leaders()).toHaveLength(1);
    expect((await w.lease())?.leaseTransitions).toBe(1);
  });

  it('a leader whose renewals fail stops acting after the renew deadline', async () => {
    const clock = new FakeClock(0);
    const cluster = new MemoryCluster(clock);
    let failing = false;
    const flaky = new Proxy(cluster, {
      get(target, prop, receiver) {
        if (prop === 'update' && failing)
          return async () => {
            throw new ApiError(500, 'InternalError', 'etcdserver: request timed out');
          };
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as ClusterClient;
    const stopped: number[] = [];
    const a = new LeaderElector({
      client: flaky,
      clock,
      namespace: NS,
      name: LEASE.name,
      identity: 'a',
      onStoppedLeading: () => stopped.push(clock.now()),
    });
    await a.step();
    clock.advance(2000);
    await a.step();
    failing = true;
    for (let i = 0; i < 5; i++) {
      clock.advance(2000);
      await a.step();
    }
    expect(stopped).toEqual([12_000]);
    expect(a.isLeader()).toBe(false);
    failing = false;
    clock.advance(1000);
    expect(await a.step()).toBe(true); // nobody took the lease meanwhile: the same holder renews it
  });

  it('run() steps every retry period and releases the lease when stopped', async () => {
    const w = world(1);
    const started: string[] = [];
    const waits: number[] = [];
    const elector: LeaderElector = new LeaderElector({
      client: w.cluster,
      clock: w.clock,
      namespace: NS,
      name: LEASE.name,
      identity: 'solo',
      onStartedLeading: () => started.push('started'),
      onStoppedLeading: () => started.push('stopped'),
      wait: async (ms) => {
        waits.push(ms);
        w.clock.advance(ms);
        if (waits.length === 3) elector.stop();
      },
    });
    await elector.run();
    expect(waits).toEqual([2000, 2000, 2000]);
    expect(started).toEqual(['started', 'stopped']);
    expect((await w.lease())?.holderIdentity).toBe('');
  });

  it('refuses timings client-go refuses', () => {
    expect(leaderElectionProblems({ identity: 'x' })).toEqual([]);
    expect(leaderElectionProblems({ identity: 'x', leaseDurationMs: 10_000, renewDeadlineMs: 10_000 })).toEqual([
      'the lease duration must be longer than the renew deadline',
    ]);
    expect(leaderElectionProblems({ identity: '', retryPeriodMs: 10_000 })).toHaveLength(2);
    expect(() => world(1, { renewDeadlineMs: 20_000 })).toThrow(/lease duration must be longer/);
  });

  it('no interleaving of steps, races, deaths, releases and clock moves ever yields two leaders', async () => {
    const action = fc.oneof(
      fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 9000 }) }),
      fc.record({ kind: fc.constant('step' as const), who: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ kind: fc.constant('race' as const) }),
      fc.record({ kind: fc.constant('release' as const), who: fc.integer({ min: 0, max: 2 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(action, { maxLength: 60 }), async (actions) => {
        const w = world(3);
        for (const a of actions) {
          if (a.kind === 'advance') w.clock.advance(a.ms);
          else if (a.kind === 'step') await w.electors[a.who].step();
          else if (a.kind === 'race') await Promise.all(w.electors.map((e) => e.step()));
          else await w.electors[a.who].release();
          if (w.leaders().length > 1) return false;
          const holder = (await w.lease())?.holderIdentity;
          for (const id of w.leaders()) if (holder !== id) return false;
        }
        return true;
      }),
      { numRuns: 200 },
    );
  });
});
