// SPDX-License-Identifier: Apache-2.0
// The verdict digest followed through records made from the last one by a few changed verdicts
// (src/core/eval/verdict-record.ts) equals the digest built afresh over the same verdicts: the
// candidates per reason and the blocked nodes, in evaluation order, after every change of a
// generated run in which reasons come and go (a reason's last candidate leaving and another
// joining in one change among them) and blocks appear and clear.
import { describe, expect, it } from 'vitest';
import { ownRecord } from '../../src/core/cluster/own-keys.js';
import type { EvalOutput, NodeResult } from '../../src/core/eval/output.js';
import { changeOf, membersOf, withChanged, withMembers } from '../../src/core/eval/verdict-record.js';
import { digestOf } from '../../src/control/reconciler/methods/verdict-digest.js';
import type { Reason } from '../../rules/model.js';
import { seededRandom } from '../support/seeded-random.js';

const REASONS: Reason[] = ['Empty', 'Drifted', 'Underutilized'];

function verdict(r: () => number): NodeResult {
  const reasons = REASONS.filter(() => r() < 0.15);
  const blocked = r() < 0.4 ? [{ code: 'PDBBlocked', message: `blocked ${Math.floor(r() * 3)}` }] : [];
  return { nodePool: 'p', candidate: reasons.length > 0, reasons, blocked } as NodeResult;
}

const evaluation = (nodes: Record<string, NodeResult>) =>
  ({ nodes, nodePools: {}, warnings: [] }) as unknown as EvalOutput;

describe('verdict digest followed through changed verdicts', () => {
  it.each([1, 2, 3, 4, 5])('equals the digest built afresh, run %i', (seed) => {
    const r = seededRandom(seed);
    const names = Array.from({ length: 5 + Math.floor(r() * 40) }, (_, i) => `node-${i}`);
    let nodes = ownRecord(Object.fromEntries(names.map((n) => [n, verdict(r)])));
    let last = evaluation(nodes);
    digestOf(last);
    let followed = 0;
    for (let step = 0; step < 400; step++) {
      const changed = names.filter(() => r() < 0.06).map((n) => [n, verdict(r)] as const);
      nodes = withChanged(nodes, changed);
      const now = evaluation(nodes);
      const got = digestOf(now, last);
      if (got.change && changeOf(nodes, last.nodes)) followed++;
      last = now;
      const want = digestOf(evaluation(ownRecord({ ...nodes })));
      const sorted = (m: ReadonlyMap<Reason, readonly string[]>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));
      expect(sorted(got.byReason), `seed ${seed} step ${step}`).toEqual(sorted(want.byReason));
      expect(got.blocked, `seed ${seed} step ${step}`).toEqual(want.blocked);
    }
    // Most digests were followed from the last one, not built (the record is compacted now and then).
    expect(followed).toBeGreaterThan(300);
  });
});

describe('verdict digest followed from the last evaluation by verdict identity', () => {
  // Whole records, as a busy tick's evaluation makes them: every node's verdict object is the
  // last one's unless it changed, nodes come (new names, anywhere in name order, now and then a
  // name seen before) and go, and the record is in name order like the index it is made from.
  it.each([1, 2, 3, 4, 5, 6])('equals the digest built afresh and names what changed, run %i', (seed) => {
    const r = seededRandom(seed);
    let serial = 0;
    const fresh = () => `node-${String(Math.floor(r() * 1e6)).padStart(6, '0')}-${serial++}`;
    let verdicts = new Map(Array.from({ length: 5 + Math.floor(r() * 40) }, () => [fresh(), verdict(r)] as const));
    const gone: string[] = [];
    const recordOf = (m: ReadonlyMap<string, NodeResult>) =>
      ownRecord(Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : 1))));
    let last = evaluation(recordOf(verdicts));
    digestOf(last);
    let followed = 0;
    let came = 0;
    for (let step = 0; step < 400; step++) {
      const next = new Map(verdicts);
      for (const name of verdicts.keys()) {
        const x = r();
        if (x < 0.03) {
          next.delete(name);
          gone.push(name);
        } else if (x < 0.08) next.set(name, verdict(r));
      }
      for (let k = r() < 0.3 ? 1 + Math.floor(r() * 3) : 0; k > 0; k--) {
        const back = gone.length > 0 && r() < 0.1;
        next.set(back ? gone.splice(Math.floor(r() * gone.length), 1)[0]! : fresh(), verdict(r));
      }
      // Now and then nothing at all changed: a new record with the same verdict objects.
      const nodes = recordOf(next);
      const now = evaluation(nodes);
      const got = digestOf(now, last);
      const want = digestOf(evaluation(ownRecord({ ...nodes })));
      const sorted = (m: ReadonlyMap<Reason, readonly string[]>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));
      expect(sorted(got.byReason), `seed ${seed} step ${step}`).toEqual(sorted(want.byReason));
      expect(got.blocked, `seed ${seed} step ${step}`).toEqual(want.blocked);
      if (got.change) {
        followed++;
        expect(got.change.previous).toBe(digestOf(last));
        // The digest followed from lets go of its own change: no chain of every tick's digests.
        expect(got.change.previous.change).toBeUndefined();
        expect(got.change.verdictsOnly).toBe(true);
        // Exactly the names whose verdict object differs, that came or went; those in the new
        // record in its order (the order a walk over every node acts in).
        const all = new Set([...verdicts.keys(), ...next.keys()]);
        const differ = [...all].filter((n) => verdicts.get(n) !== next.get(n)).sort();
        expect([...got.change.changed].sort(), `seed ${seed} step ${step}`).toEqual(differ);
        const present = got.change.changed.filter((n) => next.has(n));
        expect(present, `seed ${seed} step ${step}`).toEqual([...present].sort());
        came += [...next.keys()].filter((n) => !verdicts.has(n)).length;
      }
      verdicts = next;
      last = now;
    }
    // Most digests were followed, with names coming among them.
    expect(followed).toBeGreaterThan(330);
    expect(came).toBeGreaterThan(50);
  });
});

describe('verdict digest followed through records made as nodes came or went', () => {
  // Records as the evaluator makes them on a busy tick (verdict-record.ts withMembers): names go,
  // new names come anywhere in the order (a run of them now and then, at either end too), some
  // verdicts change, now and then a name seen before comes back or a kept name moves to another
  // place (as a machine that moved between the joined and unjoined parts of the index); between
  // them, ticks of changed verdicts alone (withChanged views).
  it.each([1, 2, 3, 4, 5, 6])('equals the digest built afresh and names what changed, run %i', (seed) => {
    const r = seededRandom(seed);
    let serial = 0;
    const fresh = () => `node-${String(Math.floor(r() * 1e6)).padStart(6, '0')}-${serial++}`;
    let order = Array.from({ length: 5 + Math.floor(r() * 40) }, fresh);
    let nodes = ownRecord(Object.fromEntries(order.map((n) => [n, verdict(r)])));
    let last = evaluation(nodes);
    digestOf(last);
    const gone: string[] = [];
    let followed = 0;
    let came = 0;
    for (let step = 0; step < 400; step++) {
      const changed: (readonly [string, NodeResult])[] = [];
      if (r() < 0.25) {
        for (const n of order) if (r() < 0.05) changed.push([n, verdict(r)]);
        nodes = withChanged(nodes, changed);
      } else {
        const went = order.filter(() => r() < 0.03);
        const next = order.filter((n) => !went.includes(n));
        const comes: string[] = [];
        for (let k = r() < 0.5 ? 1 + Math.floor(r() * 3) : 0; k > 0; k--) {
          const back = gone.length > 0 && r() < 0.1;
          comes.push(back ? gone.splice(Math.floor(r() * gone.length), 1)[0]! : fresh());
        }
        // Each at a place of its own (the kept names keep their order: only a re-derived one moves).
        for (const n of comes) next.splice(Math.floor(r() * (next.length + 1)), 0, n);
        if (r() < 0.05 && next.length > 2) {
          // A kept name moves to the end (it is re-derived, so among the changed).
          const [moved] = next.splice(Math.floor(r() * (next.length - 1)), 1);
          next.push(moved!);
          changed.push([moved!, nodes[moved!]!]);
        }
        gone.push(...went);
        for (const n of next) if (comes.includes(n) || r() < 0.04) changed.push([n, verdict(r)]);
        nodes = withMembers(nodes, next, changed, went);
        order = next;
      }
      const now = evaluation(nodes);
      const got = digestOf(now, last);
      const want = digestOf(evaluation(ownRecord({ ...nodes })));
      const sorted = (m: ReadonlyMap<Reason, readonly string[]>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));
      expect(Object.keys(nodes), `seed ${seed} step ${step}`).toEqual(order);
      expect(sorted(got.byReason), `seed ${seed} step ${step}`).toEqual(sorted(want.byReason));
      expect(got.blocked, `seed ${seed} step ${step}`).toEqual(want.blocked);
      const members = membersOf(nodes, last.nodes);
      if (members && got.change && !got.change.verdictsOnly) {
        followed++;
        came += members.names.filter((n) => !Object.prototype.hasOwnProperty.call(last.nodes, n)).length;
        expect(got.change.previous).toBe(digestOf(last));
        // The names the record says differ; those it holds in its order.
        expect([...got.change.changed].sort()).toEqual([...members.changed].sort());
        const present = got.change.changed.filter((n) => Object.prototype.hasOwnProperty.call(nodes, n));
        expect(present, `seed ${seed} step ${step}`).toEqual(order.filter((n) => present.includes(n)));
      }
      last = now;
    }
    // Most busy ticks' digests were followed by the record's names, with names coming among them.
    expect(followed).toBeGreaterThan(200);
    expect(came).toBeGreaterThan(100);
  });
});
