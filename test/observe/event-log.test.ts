// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { EventLog } from '../../src/core/observe/event-log.js';
import {
  DEFAULT_DEDUPE_MS,
  NODEPOOL_BLOCKED_DEDUPE_MS,
  UNCONSOLIDATABLE_DEDUPE_MS,
  eventType,
} from '../../src/core/observe/event-reasons.js';
import type { InvolvedObject, RecordedEvent } from '../../src/core/observe/recorder.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const node = (name: string, uid?: string): InvolvedObject => ({ kind: 'Node', name, uid });
const ev = (reason: string, message: string, object: InvolvedObject = node('n1', 'u1')): Omit<RecordedEvent, 'at'> => ({
  type: eventType(reason),
  reason,
  message,
  object,
});

function setup(capacity?: number) {
  const clock = new FakeClock(T0);
  return { clock, log: new EventLog(clock, { capacity }) };
}

describe('EventLog dedupe', () => {
  it.each([
    ['default 2 min', undefined, DEFAULT_DEDUPE_MS],
    ['Unconsolidatable 15 min', UNCONSOLIDATABLE_DEDUPE_MS, 15 * 60_000],
    ['NodePool DisruptionBlocked 1 min', NODEPOOL_BLOCKED_DEDUPE_MS, 60_000],
  ])('%s: repeats are dropped up to and including the window end, recorded after', (_name, window, ms) => {
    const { clock, log } = setup();
    log.publish(ev('Unconsolidatable', 'no savings'), window);
    clock.advance(ms - 1);
    log.publish(ev('Unconsolidatable', 'no savings'), window);
    clock.advance(1);
    log.publish(ev('Unconsolidatable', 'no savings'), window);
    expect(log.list()).toHaveLength(1);
    clock.advance(1);
    log.publish(ev('Unconsolidatable', 'no savings'), window);
    expect(log.list().map((e) => e.at)).toEqual([T0, T0 + ms + 1]);
    expect(log.deduplicated).toBe(2);
  });

  it('a dropped repeat does not extend the window', () => {
    const { clock, log } = setup();
    log.publish(ev('DisruptionBlocked', 'blocked'));
    clock.advance(90_000);
    log.publish(ev('DisruptionBlocked', 'blocked'));
    clock.advance(30_001);
    log.publish(ev('DisruptionBlocked', 'blocked'));
    expect(log.list()).toHaveLength(2);
  });

  it('keys on object, reason and message', () => {
    const { log } = setup();
    log.publish(ev('DisruptionBlocked', 'a'));
    log.publish(ev('DisruptionBlocked', 'b'));
    log.publish(ev('Unconsolidatable', 'a'));
    log.publish(ev('DisruptionBlocked', 'a', node('n2', 'u2')));
    log.publish(ev('DisruptionBlocked', 'a', node('n1', 'u1-recreated')));
    expect(log.list()).toHaveLength(5);
  });

  it('falls back to kind/namespace/name without a uid', () => {
    const { log } = setup();
    const pod = (ns: string) => ({ kind: 'Pod', name: 'web', namespace: ns });
    log.publish(ev('Evicted', 'evicted', pod('a')));
    log.publish(ev('Evicted', 'evicted', pod('a')));
    log.publish(ev('Evicted', 'evicted', pod('b')));
    expect(log.list().map((e) => e.object.namespace)).toEqual(['a', 'b']);
  });
});

describe('EventLog history', () => {
  it('keeps the most recent N events, oldest first', () => {
    const { clock, log } = setup(3);
    for (let i = 0; i < 5; i++) {
      log.publish(ev('Disrupted', `m${i}`));
      clock.advance(1000);
    }
    expect(log.list().map((e) => e.message)).toEqual(['m2', 'm3', 'm4']);
  });

  it('filters by reason, type, object, time and limit', () => {
    const { clock, log } = setup();
    log.publish(ev('Disrupted', 'one', node('a')));
    clock.advance(1000);
    log.publish(ev('FailedDraining', 'two', node('b')));
    clock.advance(1000);
    log.publish(ev('Disrupted', 'three', { kind: 'NodePool', name: 'default' }));
    expect(log.list({ reason: 'Disrupted' }).map((e) => e.message)).toEqual(['one', 'three']);
    expect(log.list({ type: 'Warning' }).map((e) => e.message)).toEqual(['two']);
    expect(log.list({ kind: 'Node', name: 'b' }).map((e) => e.message)).toEqual(['two']);
    expect(log.list({ since: T0 + 1000 }).map((e) => e.message)).toEqual(['two', 'three']);
    expect(log.list({ limit: 1 }).map((e) => e.message)).toEqual(['three']);
  });

  it('notifies listeners of recorded events only, until unsubscribed', () => {
    const { log } = setup();
    const seen: string[] = [];
    const off = log.onEvent((e) => seen.push(e.message));
    log.publish(ev('Disrupted', 'x'));
    log.publish(ev('Disrupted', 'x'));
    off();
    log.publish(ev('Disrupted', 'y'));
    expect(seen).toEqual(['x']);
  });

  it('stamps events with the injected clock and copies the object', () => {
    const { clock, log } = setup();
    clock.advance(5000);
    const obj = node('n9', 'u9');
    log.publish(ev('Disrupted', 'x', obj));
    obj.name = 'changed';
    expect(log.list()[0]).toMatchObject({ at: T0 + 5000, type: 'Normal', object: { name: 'n9' } });
  });

  it.each([
    ['FailedDraining', 'Warning'],
    ['TerminationGracePeriodExpiring', 'Warning'],
    ['InvalidDoNotDisruptAnnotation', 'Warning'],
    ['DisruptionBlocked', 'Normal'],
    ['Unconsolidatable', 'Normal'],
  ])('%s is a %s event', (reason, type) => {
    expect(eventType(reason)).toBe(type);
  });
});
