// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { CloudError } from '../../src/world/cloud/provider.js';
import { CHANGE_LOG_KEPT, parseProviderID, SimulatedCloud } from '../../src/world/cloud/simulated-cloud.js';
import type { NodeClaim, NodeSelectorRequirement } from '../../src/core/cluster/types.js';

const T0 = Date.UTC(2026, 0, 5, 12);
const r = (
  key: string,
  operator: NodeSelectorRequirement['operator'],
  ...values: string[]
): NodeSelectorRequirement => ({ key, operator, values });
const IT = 'node.kubernetes.io/instance-type';
const CT = 'karpenter.sh/capacity-type';
const ZONE = 'topology.kubernetes.io/zone';

function claim(name: string, requirements: NodeSelectorRequirement[], requests?: Record<string, string>): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name },
    spec: { requirements, ...(requests ? { resources: { requests } } : {}) },
  };
}

function setup(opts: Partial<ConstructorParameters<typeof SimulatedCloud>[0]> = {}) {
  const clock = new FakeClock(T0);
  const cloud = new SimulatedCloud({ clock, launchLatencyMs: 30_000, terminationDelayMs: 10_000, ...opts });
  return { clock, cloud };
}

const spotPrice = (cloud: SimulatedCloud, type: string, zone: string) =>
  cloud
    .instanceTypes()
    .find((t) => t.name === type)!
    .offerings.find((o) => o.zone === zone && o.capacityType === 'spot')!.price;

describe('SimulatedCloud.create: cheapest compatible offering', () => {
  it('picks the cheapest spot zone when spot is allowed', async () => {
    const { cloud } = setup();
    const inst = await cloud.create(claim('a', [r(IT, 'In', 'm5.large')]));
    const zones = ['us-west-2a', 'us-west-2b', 'us-west-2c'];
    const cheapest = zones.reduce((a, b) =>
      spotPrice(cloud, 'm5.large', a) <= spotPrice(cloud, 'm5.large', b) ? a : b,
    );
    expect(inst).toMatchObject({
      instanceType: 'm5.large',
      capacityType: 'spot',
      zone: cheapest,
      state: 'pending',
      launchedAt: T0,
    });
    expect(inst.price).toBe(spotPrice(cloud, 'm5.large', cheapest));
    expect(inst.providerID).toMatch(/^kpol-sim:\/\/\/us-west-2[abc]\/i-0{16}1$/);
    expect(parseProviderID(inst.providerID)).toEqual({ zone: cheapest, instanceID: 'i-00000000000000001' });
  });

  it('prefers reserved over on-demand, and on-demand when only that is allowed', async () => {
    const { cloud } = setup();
    const res = await cloud.create(claim('a', [r(IT, 'In', 'm5.large'), r(CT, 'In', 'on-demand', 'reserved')]));
    expect(res).toMatchObject({ capacityType: 'reserved', zone: 'us-west-2a', price: 0.0595 });
    const od = await cloud.create(claim('b', [r(IT, 'In', 'm5.large'), r(CT, 'In', 'on-demand')]));
    expect(od).toMatchObject({ capacityType: 'on-demand', zone: 'us-west-2a', price: 0.096 });
  });

  it('honours zone restrictions and picks the cheapest type among several', async () => {
    const { cloud } = setup();
    const inst = await cloud.create(
      claim('a', [
        r(IT, 'In', 'm5.xlarge', 'c5.large', 'r5.large'),
        r(CT, 'In', 'on-demand'),
        r(ZONE, 'In', 'us-west-2c'),
      ]),
    );
    expect(inst).toMatchObject({
      instanceType: 'c5.large',
      zone: 'us-west-2c',
      capacityType: 'on-demand',
      price: 0.085,
    });
  });

  it('arch: arm64 gets c6g; GPU requests get g5', async () => {
    const { cloud } = setup();
    const arm = await cloud.create(claim('a', [r('kubernetes.io/arch', 'In', 'arm64'), r(CT, 'In', 'on-demand')]));
    expect(arm.instanceType).toBe('c6g.large');
    const gpu = await cloud.create(claim('b', [r(CT, 'In', 'on-demand')], { 'nvidia.com/gpu': '1', cpu: '6' }));
    expect(gpu.instanceType).toBe('g5.2xlarge');
    const big = await cloud.create(
      claim('c', [r(CT, 'In', 'on-demand'), r('kpol.dev/instance-family', 'In', 'm5')], {
        cpu: '3500m',
        memory: '20Gi',
      }),
    );
    expect(big.instanceType).toBe('m5.2xlarge');
  });

  it('skips offerings that are unavailable in the catalog', async () => {
    const { cloud } = setup();
    const inst = await cloud.create(
      claim('a', [r(IT, 'In', 'g5.2xlarge'), r(CT, 'In', 'spot'), r(ZONE, 'In', 'us-west-2b', 'us-west-2c')]),
    );
    expect(inst.zone).toBe('us-west-2b');
  });

  it('fails without ICE when nothing is compatible', async () => {
    const { cloud } = setup();
    const err = await cloud
      .create(claim('a', [r('kubernetes.io/arch', 'In', 'arm64'), r('kpol.dev/instance-gpu-count', 'Exists')]))
      .catch((e) => e);
    expect(err).toBeInstanceOf(CloudError);
    expect(err.insufficientCapacity).toBe(false);
  });
});

describe('SimulatedCloud lifecycle', () => {
  it(
    'pending → running after the launch latency; delete → terminating → terminated; get ' + 'forgets terminated',
    async () => {
      const { clock, cloud } = setup();
      const { providerID } = await cloud.create(claim('a', [r(IT, 'In', 't3.large')]));
      clock.advance(29_999);
      expect((await cloud.get(providerID))?.state).toBe('pending');
      clock.advance(1);
      expect((await cloud.get(providerID))?.state).toBe('running');
      await cloud.delete(providerID);
      expect((await cloud.get(providerID))?.state).toBe('terminating');
      expect(await cloud.list()).toHaveLength(1);
      clock.advance(10_000);
      expect(await cloud.get(providerID)).toBeUndefined();
      expect(await cloud.list()).toEqual([]);
      await expect(cloud.delete(providerID)).resolves.toBeUndefined(); // idempotent
    },
  );

  it('launch latency may depend on the instance type', async () => {
    const { clock, cloud } = setup({ launchLatencyMs: (it) => (it.family === 'g5' ? 90_000 : 20_000) });
    const cpu = await cloud.create(claim('a', [r(IT, 'In', 'c5.large')]));
    const gpu = await cloud.create(claim('b', [r(IT, 'In', 'g5.xlarge')]));
    clock.advance(20_000);
    expect((await cloud.get(cpu.providerID))?.state).toBe('running');
    expect((await cloud.get(gpu.providerID))?.state).toBe('pending');
  });

  it('records every call with time, arguments and result', async () => {
    const { clock, cloud } = setup();
    const inst = await cloud.create(claim('a', [r(IT, 'In', 'c5.large')]));
    clock.advance(5_000);
    await cloud.get(inst.providerID);
    await cloud.delete(inst.providerID);
    await cloud.create(claim('b', [r('kubernetes.io/arch', 'In', 'nope')])).catch(() => undefined);
    expect(cloud.calls.map((c) => [c.at - T0, c.op, c.args[0]])).toEqual([
      [0, 'create', 'a'],
      [5000, 'get', inst.providerID],
      [5000, 'delete', inst.providerID],
      [5000, 'create', 'b'],
    ]);
    expect(cloud.calls[0].result).toMatchObject({ providerID: inst.providerID });
    expect(cloud.calls[2].result).toBe('terminating');
    expect(cloud.calls[3].result).toMatchObject({
      insufficientCapacity: false,
      error: expect.stringMatching(/NodeClaim b/),
    });
  });

  it('orphans are live instances no NodeClaim refers to; costPerHour sums the live ones', async () => {
    const { cloud } = setup();
    const a = await cloud.create(claim('a', [r(IT, 'In', 'c5.large'), r(CT, 'In', 'on-demand')]));
    const b = await cloud.create(claim('b', [r(IT, 'In', 'm5.large'), r(CT, 'In', 'on-demand')]));
    const c = await cloud.create(claim('c', [r(IT, 'In', 'r5.large'), r(CT, 'In', 'on-demand')]));
    await cloud.delete(c.providerID);
    const known = { ...claim('a', []), status: { providerID: a.providerID } };
    expect(cloud.orphans([known, claim('x', [])]).map((i) => i.providerID)).toEqual([b.providerID]);
    expect(cloud.costPerHour()).toBeCloseTo(0.085 + 0.096 + 0.126, 6);
  });

  it('lists and bills every instance until it is terminated, in launch order, however many went before', async () => {
    // A listing reads only the instances not yet terminated (kept apart from the ones gone):
    // the same answers, at every step of a churn, as going through every instance ever launched.
    const { clock, cloud } = setup();
    const launched: string[] = [];
    const gone = new Map<string, number>(); // providerID → when its termination began
    for (let step = 0; step < 40; step++) {
      const inst = await cloud.create(claim(`n${step}`, [r(IT, 'In', 'm5.large'), r(CT, 'In', 'on-demand')]));
      launched.push(inst.providerID);
      // Every third machine goes now, every fifth again later (an earlier notice cannot resurrect it).
      if (step % 3 === 0) {
        await cloud.delete(inst.providerID);
        gone.set(inst.providerID, clock.now());
      }
      if (step % 5 === 4) {
        const earlier = launched[step - 4]!;
        await cloud.delete(earlier);
        if (!gone.has(earlier)) gone.set(earlier, clock.now());
      }
      clock.advance(4_000); // the termination delay is 10 s: some are terminating, some terminated
      const now = clock.now();
      const listed = launched.filter((id) => !gone.has(id) || now < gone.get(id)! + 10_000);
      expect((await cloud.list()).map((i) => i.providerID)).toEqual(listed);
      expect(cloud.costPerHour()).toBeCloseTo(listed.length * 0.096, 6);
      const running = launched.filter((id) => !gone.has(id) || now < gone.get(id)!);
      expect(cloud.orphans([]).map((i) => i.providerID)).toEqual(running);
    }
  });
});

describe('SimulatedCloud failures', () => {
  it('failNextCreates fails exactly that many creates', async () => {
    const { cloud } = setup();
    cloud.failNextCreates(2, new CloudError('boom'));
    await expect(cloud.create(claim('a', []))).rejects.toThrow('boom');
    await expect(cloud.create(claim('b', []))).rejects.toThrow('boom');
    await expect(cloud.create(claim('c', []))).resolves.toMatchObject({ state: 'pending' });
  });

  it('failCreatesWhen applies a predicate per NodeClaim', async () => {
    const { cloud } = setup();
    cloud.failCreatesWhen((nc) => (nc.metadata.name.startsWith('gpu') ? new CloudError('quota exceeded') : undefined));
    await expect(cloud.create(claim('gpu-1', []))).rejects.toThrow('quota exceeded');
    await expect(cloud.create(claim('cpu-1', []))).resolves.toBeDefined();
    cloud.failCreatesWhen(undefined);
    await expect(cloud.create(claim('gpu-2', []))).resolves.toBeDefined();
  });

  it('exhausted capacity: the offering turns unavailable for the ICE TTL and the next cheapest launches', async () => {
    const { clock, cloud } = setup({ unavailableOfferingTtlMs: 60_000 });
    const reqs = [r(IT, 'In', 'm5.large'), r(CT, 'In', 'on-demand')];
    cloud.exhaust((it, o) => it.name === 'm5.large' && o.zone === 'us-west-2a');
    const inst = await cloud.create(claim('a', reqs));
    expect(inst.zone).toBe('us-west-2b');
    const avail = (z: string) =>
      cloud
        .instanceTypes()
        .find((t) => t.name === 'm5.large')!
        .offerings.find((o) => o.zone === z && o.capacityType === 'on-demand')!.available;
    expect(avail('us-west-2a')).toBe(false);
    cloud.restoreCapacity();
    clock.advance(59_999);
    expect((await cloud.create(claim('b', reqs))).zone).toBe('us-west-2b');
    clock.advance(1);
    expect(avail('us-west-2a')).toBe(true);
    expect((await cloud.create(claim('c', reqs))).zone).toBe('us-west-2a');
  });

  it('ICE when every compatible offering is out of capacity', async () => {
    const { cloud } = setup();
    cloud.exhaust((it) => it.name === 'c5.large');
    const err = await cloud.create(claim('a', [r(IT, 'In', 'c5.large')])).catch((e) => e);
    expect(err).toBeInstanceOf(CloudError);
    expect(err.insufficientCapacity).toBe(true);
    expect(
      cloud
        .instanceTypes()
        .find((t) => t.name === 'c5.large')!
        .offerings.every((o) => !o.available),
    ).toBe(true);
  });
});

describe('SimulatedCloud interruptions', () => {
  it(
    'a spot interruption is delivered once, reclaims the instance after 2 min, and marks the ' +
      'spot offering unavailable',
    async () => {
      const { clock, cloud } = setup({ launchLatencyMs: 0 });
      const inst = await cloud.create(claim('a', [r(IT, 'In', 'm5.large'), r(CT, 'In', 'spot')]));
      const notice = cloud.interrupt(inst.providerID);
      expect(notice).toEqual({ providerID: inst.providerID, kind: 'SpotInterruption', at: T0, deadline: T0 + 120_000 });
      expect(cloud.receiveInterruptions()).toEqual([notice]);
      expect(cloud.receiveInterruptions()).toEqual([]);
      const spot = cloud
        .instanceTypes()
        .find((t) => t.name === 'm5.large')!
        .offerings.find((o) => o.zone === inst.zone && o.capacityType === 'spot')!;
      expect(spot.available).toBe(false);
      clock.advance(119_999);
      expect((await cloud.get(inst.providerID))?.state).toBe('running');
      clock.advance(1);
      expect((await cloud.get(inst.providerID))?.state).toBe('terminating');
      clock.advance(10_000);
      expect(await cloud.get(inst.providerID)).toBeUndefined();
    },
  );

  it(
    'scheduled interruptions arrive when the clock reaches them; rebalance recommendations ' + 'reclaim nothing',
    async () => {
      const { clock, cloud } = setup({ launchLatencyMs: 0 });
      const a = await cloud.create(claim('a', []));
      const b = await cloud.create(claim('b', []));
      cloud.scheduleInterruption(a.providerID, T0 + 60_000, 'ScheduledChange', 3_600_000);
      cloud.scheduleInterruption(b.providerID, T0 + 30_000, 'RebalanceRecommendation');
      expect(cloud.receiveInterruptions()).toEqual([]);
      clock.advance(60_000);
      expect(cloud.receiveInterruptions().map((n) => [n.kind, n.deadline])).toEqual([
        ['RebalanceRecommendation', undefined],
        ['ScheduledChange', T0 + 60_000 + 3_600_000],
      ]);
      clock.advance(3_600_000);
      expect((await cloud.get(a.providerID))?.state).toBe('terminating');
      expect((await cloud.get(b.providerID))?.state).toBe('running');
    },
  );

  it('an instance-stopping notice reclaims at once', async () => {
    const { cloud } = setup({ launchLatencyMs: 0 });
    const a = await cloud.create(claim('a', []));
    cloud.interrupt(a.providerID, 'InstanceStopping');
    expect((await cloud.get(a.providerID))?.state).toBe('terminating');
  });
});

describe('SimulatedCloud.instanceTypes', () => {
  it('returns the same array until an availability change, then a fresh one', async () => {
    const { clock, cloud } = setup({ unavailableOfferingTtlMs: 1_000 });
    const a = cloud.instanceTypes();
    clock.advance(500);
    expect(cloud.instanceTypes()).toBe(a);
    cloud.markUnavailable('m5.large', 'us-west-2a', 'spot');
    const b = cloud.instanceTypes();
    expect(b).not.toBe(a);
    expect(
      b.find((t) => t.name === 'm5.large')!.offerings.find((o) => o.zone === 'us-west-2a' && o.capacityType === 'spot')!
        .available,
    ).toBe(false);
    clock.advance(999);
    expect(cloud.instanceTypes()).toBe(b);
    clock.advance(1);
    const c = cloud.instanceTypes();
    expect(c).not.toBe(b);
    expect(c.find((t) => t.name === 'm5.large')!.offerings.every((o) => o.available)).toBe(true);
  });
});

describe('SimulatedCloud instance ids across processes', () => {
  it("counts up from instanceIdStart, so a fresh cloud never reuses an earlier process's ids", async () => {
    const { cloud } = setup({ instanceIdStart: 0x1000 });
    const inst = await cloud.create(claim('a', [r(IT, 'In', 'm5.large')]));
    expect(parseProviderID(inst.providerID)?.instanceID).toBe('i-00000000000001001');
  });

  it('launches after adopting a machine with an id past the adopted one', async () => {
    const { cloud } = setup();
    const adopted: NodeClaim = {
      ...claim('old', []),
      metadata: { name: 'old', labels: { [IT]: 'm5.large', [ZONE]: 'us-west-2a', [CT]: 'on-demand' } },
      status: { providerID: 'kpol-sim:///us-west-2a/i-00000000000000007' },
    };
    expect(cloud.adopt([adopted])).toEqual([]);
    const inst = await cloud.create(claim('new', [r(IT, 'In', 'm5.large')]));
    expect(parseProviderID(inst.providerID)?.instanceID).toBe('i-00000000000000008');
    expect((await cloud.list()).map((i) => i.providerID)).toContain(adopted.status!.providerID);
  });
});

describe('SimulatedCloud: change stamp', () => {
  it(
    'moves on a launch, when a pending instance starts, on a termination and when it completes,' +
      ' and on a notice falling due — and not otherwise',
    async () => {
      const clock = new FakeClock(Date.UTC(2026, 0, 5, 12));
      const cloud = new SimulatedCloud({ clock, launchLatencyMs: 30_000, terminationDelayMs: 10_000 });
      const stamps = [cloud.changeStamp()];
      const step = (ms: number) => {
        clock.advance(ms);
        stamps.push(cloud.changeStamp());
      };
      const inst = await cloud.create(claim('a', []));
      stamps.push(cloud.changeStamp()); // launched
      step(29_999); // still pending
      step(1); // running
      step(60_000); // nothing
      cloud.scheduleInterruption(inst.providerID, clock.now() + 5_000, 'RebalanceRecommendation');
      stamps.push(cloud.changeStamp()); // scheduled
      step(4_999);
      step(1); // due
      await cloud.delete(inst.providerID);
      stamps.push(cloud.changeStamp()); // terminating
      step(9_999);
      step(1); // terminated
      step(60_000);
      const moved = stamps.slice(1).map((s, i) => s !== stamps[i]);
      expect(moved).toEqual([true, false, true, false, true, false, true, true, false, true, false]);
    },
  );
});

describe('SimulatedCloud: changes since a cursor', () => {
  it('names each launched or terminated instance with every instant its state changes at', async () => {
    const { clock, cloud } = setup();
    const a = await cloud.create(claim('a', []));
    const first = cloud.changesSince(0);
    // Pending now, running after the launch latency.
    expect(first.changes).toEqual([
      { providerID: a.providerID, at: T0 },
      { providerID: a.providerID, at: T0 + 30_000 },
    ]);
    expect(cloud.changesSince(first.cursor).changes).toEqual([]);
    clock.advance(60_000);
    // A notice with a deadline: terminating at the deadline, terminated after the termination delay.
    cloud.scheduleInterruption(a.providerID, clock.now(), 'SpotInterruption', 120_000);
    const notice = cloud.changesSince(first.cursor);
    expect(notice.changes).toEqual([
      { providerID: a.providerID, at: T0 + 60_000 }, // the record changed now (its state does not yet)
      { providerID: a.providerID, at: T0 + 180_000 },
      { providerID: a.providerID, at: T0 + 190_000 },
    ]);
    // Deleted before the deadline: terminating now.
    await cloud.delete(a.providerID);
    expect(cloud.changesSince(notice.cursor).changes).toEqual([
      { providerID: a.providerID, at: T0 + 60_000 },
      { providerID: a.providerID, at: T0 + 60_000 },
      { providerID: a.providerID, at: T0 + 70_000 },
    ]);
  });

  it('keeps a bounded log: a reader behind it reads every instance, and the changes still to come', async () => {
    const { clock, cloud } = setup();
    const first = await cloud.create(claim('first', []));
    const start = cloud.changesSince(0);
    // Each launch logs two entries (pending now, running later); enough launches to trim twice.
    const launched: string[] = [];
    while (cloud.changesSince(start.cursor).whole === undefined)
      launched.push((await cloud.create(claim(`m-${launched.length}`, []))).providerID);
    expect(launched.length).toBeGreaterThan(CHANGE_LOG_KEPT / 2);
    const behind = cloud.changesSince(start.cursor);
    expect(behind.whole).toBe(true);
    // Every launch is still pending at this instant: its running instant is among the changes,
    // the first ones' too, whose entries were dropped.
    const ids = new Set(behind.changes.filter((c) => c.at > clock.now()).map((c) => c.providerID));
    expect(launched.filter((id) => !ids.has(id))).toEqual([]);
    // A reader at the head reads only what is new.
    clock.advance(60_000);
    await cloud.delete(first.providerID);
    const next = cloud.changesSince(behind.cursor);
    expect(next.whole).toBeUndefined();
    expect(new Set(next.changes.map((c) => c.providerID))).toEqual(new Set([first.providerID]));
  });
});
