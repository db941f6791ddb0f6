// SPDX-License-Identifier: Apache-2.0
// A batch skipped while all its events are inside their dedupe windows records exactly what
// publishing it every tick records.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { EventLog } from '../../src/core/observe/event-log.js';
import type { EventRecorder, RecordedEvent } from '../../src/core/observe/recorder.js';
import { changedPlaces, RepeatedBatch, type Publish } from '../../src/core/observe/repeated-batch.js';

const T0 = Date.parse('2026-08-21T00:00:00Z');

/** Three events with different dedupe windows; the second input adds a fourth. */
function batchFor(input: { extra: boolean }) {
  return (publish: Publish) => {
    publish({
      type: 'Normal',
      reason: 'DisruptionBlocked',
      message: 'Pod is blocking',
      object: { kind: 'Node', name: 'a' },
    });
    publish(
      { type: 'Normal', reason: 'Unconsolidatable', message: 'Not cheaper', object: { kind: 'Node', name: 'b' } },
      15 * 60_000,
    );
    publish(
      {
        type: 'Normal',
        reason: 'DisruptionBlocked',
        message: 'Pod is blocking',
        object: { kind: 'NodeClaim', name: 'a' },
      },
      45_000,
    );
    if (input.extra)
      publish({
        type: 'Normal',
        reason: 'DisruptionBlocked',
        message: 'Node is nominated',
        object: { kind: 'Node', name: 'c' },
      });
  };
}

describe('RepeatedBatch', () => {
  it('records the same events at the same instants as publishing every tick', async () => {
    const clock = new FakeClock(T0);
    const direct = new EventLog(clock);
    const batched = new EventLog(clock);
    const batch = new RepeatedBatch(batched);
    const first = { extra: false };
    const second = { extra: true };
    let runs = 0;
    for (let i = 0; i < 240; i++) {
      const input = i < 100 || i >= 160 ? first : second;
      batchFor(input)((e, d) => direct.publish(e, d));
      batch.run(input, clock.now(), (publish) => {
        runs++;
        batchFor(input)(publish);
      });
      clock.advance(5_000);
    }
    const strip = (es: RecordedEvent[]) => es.map((e) => `${e.at - T0} ${e.object.kind}/${e.object.name} ${e.reason}`);
    expect(strip(batched.list())).toEqual(strip(direct.list()));
    expect(direct.list().length).toBeGreaterThan(20);
    expect(runs).toBeLessThan(100); // most ticks skipped
  });

  it('publishes every time through a recorder that does not report its dedupe windows', () => {
    const seen: string[] = [];
    const recorder: EventRecorder = { publish: (e) => void seen.push(e.object.name) };
    const batch = new RepeatedBatch(recorder);
    const key = {};
    for (let i = 0; i < 3; i++) batch.run(key, T0 + i, batchFor({ extra: false }));
    expect(seen).toEqual(['a', 'b', 'a', 'a', 'b', 'a', 'a', 'b', 'a']);
  });

  it('publishes only changed items while the rest are inside their windows, recording what publishing all does', () => {
    const clock = new FakeClock(T0);
    const direct = new EventLog(clock);
    const batched = new EventLog(clock);
    const batch = new RepeatedBatch(batched);
    // Items are [node, message, dedupe]; every 7th tick one item gets a new message (a new tuple),
    // every 23rd the list is rebuilt with equal tuples (new objects, same contents).
    const dedupe = [60_000, 15 * 60_000, 45_000, 120_000];
    type Item = readonly [string, string, number];
    let items: Item[] = ['a', 'b', 'c', 'd'].map((n, i) => [n, 'first', dedupe[i]!]);
    const publishItem = (item: Item, publish: Publish) => {
      publish(
        { type: 'Normal', reason: 'Unconsolidatable', message: item[1], object: { kind: 'Node', name: item[0] } },
        item[2],
      );
    };
    let published = 0;
    for (let i = 0; i < 300; i++) {
      if (i % 7 === 3) items = items.map((it, k) => (k === i % 4 ? [it[0], `m${i % 3}`, it[2]] : it));
      if (i % 23 === 5) items = items.map((it): Item => [it[0], it[1], it[2]]);
      for (const it of items) publishItem(it, (e, d) => direct.publish(e, d));
      batch.runItems(
        items,
        clock.now(),
        (last, now) => changedPlaces(last, now, (a, b) => a === b),
        (it, publish) => {
          published++;
          publishItem(it, publish);
        },
      );
      clock.advance(5_000);
    }
    const strip = (es: RecordedEvent[]) => es.map((e) => `${e.at - T0} ${e.object.name} ${e.message}`);
    expect(strip(batched.list())).toEqual(strip(direct.list()));
    expect(direct.list().length).toBeGreaterThan(50);
    expect(published).toBeLessThan((4 * 300) / 3); // most items skipped
  });

  it('replays captured events as publishing them all again records, publishing only those whose window ended', () => {
    const clock = new FakeClock(T0);
    const direct = new EventLog(clock);
    const log = new EventLog(clock);
    let calls = 0;
    const batch = new RepeatedBatch({ publish: (e, d) => (calls++, log.publish(e, d)) });
    const events = batch.capture();
    batchFor({ extra: true })((e, d) => events.publish(e, d) ?? -Infinity);
    batchFor({ extra: true })((e, d) => direct.publish(e, d));
    for (let i = 1; i < 400; i++) {
      clock.advance(5_000);
      batchFor({ extra: true })((e, d) => direct.publish(e, d));
      batch.replay(clock.now());
    }
    const strip = (es: RecordedEvent[]) => es.map((e) => `${e.at - T0} ${e.object.kind}/${e.object.name} ${e.reason}`);
    expect(strip(log.list())).toEqual(strip(direct.list()));
    expect(direct.list().length).toBeGreaterThan(20);
    expect(calls).toBe(log.list().length); // nothing published that the log dropped
  });

  it('replays every captured event when asked, whatever its window', () => {
    let calls = 0;
    const batch = new RepeatedBatch({ publish: () => void calls++ });
    const events = batch.capture();
    batchFor({ extra: false })((e, d) => events.publish(e, d) ?? -Infinity);
    for (let i = 1; i <= 10; i++) batch.replay(T0 + i, true);
    expect(calls).toBe(3 * 11);
  });
});
