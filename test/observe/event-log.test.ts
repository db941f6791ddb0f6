// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { EventLog } from '../../src/core/observe/event-log.js';
import {
  DEFAULT_DEDUPE_MS,
  NODEPOOL_BLOCKED_DEDUPE_MS,
  UNCONSOLIDATABLE_DEDUPE_MS,
  eventType,
  unconsolidatable,
} from '../../src/core/observe/event-reasons.js';
import { byObject, type EventToPublish, type InvolvedObject } from '../../src/core/observe/recorder.js';
import { evicted, failedDraining } from '../../src/control/termination/events.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const node = (name: string, uid?: string): InvolvedObject => ({ kind: 'Node', name, uid });
const ev = (reason: string, message: string, object: InvolvedObject = node('n1', 'u1')): EventToPublish => ({
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

  it('without dedupe values, keys on object, reason and message', () => {
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

  it("with dedupe values, keys on reason and values alone, as Karpenter's recorder does", () => {
    const { clock, log } = setup();
    const n1 = node('n1', 'u1');
    log.publish({ ...ev('DisruptionBlocked', 'a'), dedupe: byObject(n1) });
    // Another message on the same object is a repeat; another reason or object is not.
    log.publish({ ...ev('DisruptionBlocked', 'b'), dedupe: byObject(n1) });
    log.publish({ ...ev('Unconsolidatable', 'b'), dedupe: byObject(n1) });
    log.publish({ ...ev('DisruptionBlocked', 'b', node('n1', 'u1-recreated')), dedupe: ['u1-recreated'] });
    expect(log.list().map((e) => [e.reason, e.message, e.object.uid])).toEqual([
      ['DisruptionBlocked', 'a', 'u1'],
      ['Unconsolidatable', 'b', 'u1'],
      ['DisruptionBlocked', 'b', 'u1-recreated'],
    ]);
    clock.advance(DEFAULT_DEDUPE_MS + 1);
    log.publish({ ...ev('DisruptionBlocked', 'b'), dedupe: byObject(n1) });
    expect(log.list().at(-1)?.message).toBe('b');
  });

  it('byObject keeps a Node and its NodeClaim of the same name apart without uids', () => {
    const { log } = setup();
    for (const kind of ['Node', 'NodeClaim'])
      log.publish(unconsolidatable({ kind, name: 'n1' }, 'why'), UNCONSOLIDATABLE_DEDUPE_MS);
    log.publish(unconsolidatable({ kind: 'Node', name: 'n1' }, 'another why'), UNCONSOLIDATABLE_DEDUPE_MS);
    expect(log.list().map((e) => [e.object.kind, e.message])).toEqual([
      ['Node', 'why'],
      ['NodeClaim', 'why'],
    ]);
  });

  it('an Unconsolidatable message given as a function is found only when the event is recorded, once', () => {
    const { clock, log } = setup();
    let asked = 0;
    const why = () => `found ${++asked}`;
    const n1 = node('n1', 'u1');
    log.publish(unconsolidatable(n1, 'first'), UNCONSOLIDATABLE_DEDUPE_MS);
    log.publish(unconsolidatable(n1, why), UNCONSOLIDATABLE_DEDUPE_MS); // a repeat: never asked
    expect(asked).toBe(0);
    clock.advance(UNCONSOLIDATABLE_DEDUPE_MS + 1);
    const event = unconsolidatable(n1, why);
    log.publish(event, UNCONSOLIDATABLE_DEDUPE_MS);
    expect(event.message).toBe('found 1');
    expect(log.list().map((e) => e.message)).toEqual(['first', 'found 1']);
    expect(asked).toBe(1);
  });

  it("termination events key on the pod's or node's name alone (Karpenter's DedupeValues)", () => {
    const { log } = setup();
    const pod = (namespace: string, uid: string) => ({ kind: 'Pod', name: 'web-0', namespace, uid });
    log.publish(evicted(pod('a', 'p1'), 'Drifted'));
    log.publish(evicted(pod('a', 'p2'), 'Drifted')); // recreated under its name
    log.publish(evicted(pod('b', 'p3'), 'Expired')); // another namespace
    const n = node('n1', 'u1');
    log.publish(failedDraining(n, { kind: 'waiting', pods: 2 }));
    log.publish(failedDraining(n, { kind: 'pdb', pod: 'a/web-0' }));
    expect(log.list().map((e) => e.message)).toEqual([
      'Evicted pod: Drifted',
      'Failed to drain node, 2 pods are waiting to be evicted',
    ]);
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
