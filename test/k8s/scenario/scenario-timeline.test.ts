// SPDX-License-Identifier: Apache-2.0
// The time translation on its own (no server): server timestamps become the fake time at which
// they were first seen; a pod's grace period survives; a new deletion request is a new time.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/core/clock.js';
import type { KubeObject } from '../../../src/core/cluster/types.js';
import { ScenarioTimeline } from './scenario-timeline.js';

const T0 = Date.parse('2026-11-23T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const WALL = '2026-11-22T16:40:07Z';

const pod = (meta: Partial<KubeObject['metadata']> & { deletionGracePeriodSeconds?: number } = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', uid: 'u1', creationTimestamp: WALL, ...meta },
});

describe('ScenarioTimeline', () => {
  it('creationTimestamp is the fake time the object was first seen, however later it is read', () => {
    const clock = new FakeClock(T0);
    const t = new ScenarioTimeline(clock);
    expect(t.translate(pod()).metadata.creationTimestamp).toBe(iso(T0));
    clock.advance(3 * 3600_000);
    expect(t.translate(pod()).metadata.creationTimestamp).toBe(iso(T0));
    expect(t.translate(pod({ uid: 'u2' })).metadata.creationTimestamp).toBe(iso(T0 + 3 * 3600_000));
  });

  it('deletionTimestamp is first seen + the grace period; a shorter-grace delete moves it', () => {
    const clock = new FakeClock(T0);
    const t = new ScenarioTimeline(clock);
    t.translate(pod());
    clock.advance(60_000);
    const deleting = pod({ deletionTimestamp: '2026-11-22T16:40:37Z', deletionGracePeriodSeconds: 30 });
    expect(t.translate(deleting).metadata.deletionTimestamp).toBe(iso(T0 + 60_000 + 30_000));
    clock.advance(10_000);
    expect(t.translate(deleting).metadata.deletionTimestamp).toBe(iso(T0 + 90_000)); // the same request
    const forced = pod({ deletionTimestamp: '2026-11-22T16:40:12Z', deletionGracePeriodSeconds: 1 });
    expect(t.translate(forced).metadata.deletionTimestamp).toBe(iso(T0 + 70_000 + 1_000));
  });

  it('leaves the object given alone and passes objects without a uid through', () => {
    const t = new ScenarioTimeline(new FakeClock(T0));
    const o = pod();
    t.translate(o);
    expect(o.metadata.creationTimestamp).toBe(WALL);
    const fresh = pod({ uid: undefined });
    expect(t.translate(fresh)).toBe(fresh);
  });
});
