// SPDX-License-Identifier: Apache-2.0
// DisruptionBlocked events published only for the nodes whose verdict or objects changed (and for
// those whose windows ended) record exactly what publishing every blocked node every tick records,
// over a generated run of evaluations in which verdicts, messages and node objects change — also
// when each record is made from the last by the changed verdicts alone (verdict-record.ts), when
// only the changed nodes are looked at; and when each whole record is followed from the last one
// by its verdict objects (verdict-digest.ts), with the Nodes and NodeClaims that changed under an
// unchanged verdict learnt from watch events.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { ClusterIndex, StateNode } from '../../src/core/cluster/state.js';
import type { Node, NodeClaim } from '../../src/core/cluster/types.js';
import type { EvalOutput, NodeResult } from '../../src/core/eval/output.js';
import { EventLog } from '../../src/core/observe/event-log.js';
import type { RecordedEvent } from '../../src/core/observe/recorder.js';
import { BlockedEvents } from '../../src/control/reconciler/blocked-events.js';
import { digestOf } from '../../src/control/reconciler/methods/verdict-digest.js';
import type { WatchEvent } from '../../src/core/cluster/client.js';
import { ownRecord } from '../../src/core/cluster/own-keys.js';
import { withChanged } from '../../src/core/eval/verdict-record.js';

const T0 = Date.parse('2026-11-26T00:00:00Z');
const NAMES = ['n0', 'n1', 'n2', 'n3', 'n4', 'n5'];
const CODES = ['PDBBlocked', 'DoNotDisruptPod', 'Nominated', 'NotInitialized'];

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const verdict = (code: string, message: string): NodeResult => ({
  nodePool: 'default',
  candidate: false,
  reasons: [],
  blocked: [{ code, message } as NodeResult['blocked'][number]],
});

const stateNode = (name: string, uid: string): StateNode => ({
  name,
  node: { apiVersion: 'v1', kind: 'Node', metadata: { name, uid }, spec: {} } as Node,
  nodeClaim: { kind: 'NodeClaim', metadata: { name: `${name}-claim`, uid: `c-${uid}` } } as StateNode['nodeClaim'],
  pods: [],
});

/** Every event of every blocked node, published each tick: what BlockedEvents must equal. */
function publishAll(log: EventLog, evaluation: EvalOutput, index: ClusterIndex): void {
  for (const [name, n] of Object.entries(evaluation.nodes)) {
    if (n.blocked.length === 0) continue;
    const sn = index.nodesByName.get(name)!;
    const message = n.blocked[0].message.charAt(0).toUpperCase() + n.blocked[0].message.slice(1);
    for (const o of sn.nodeClaim ? [sn.node!, sn.nodeClaim] : [sn.node!])
      log.publish({
        type: 'Normal',
        reason: 'DisruptionBlocked',
        message,
        object: { kind: o === sn.node ? 'Node' : 'NodeClaim', name: o.metadata.name, uid: o.metadata.uid },
        // Karpenter's key: the object's UID alone (a changed message within the window is a repeat).
        dedupe: [o.metadata.uid!],
      });
  }
}

/** One node's verdict changes or goes, or its Node is replaced (a new uid), or nothing. */
function change(
  r: () => number,
  name: string,
  verdicts: Map<string, NodeResult>,
  nodes: Map<string, StateNode>,
  tick: number,
): void {
  const x = r();
  if (x < 0.1) verdicts.delete(name);
  else if (x < 0.25 || !verdicts.has(name))
    verdicts.set(name, verdict(CODES[Math.floor(r() * CODES.length)], `blocked ${Math.floor(r() * 3)}`));
  if (r() < 0.05) nodes.set(name, stateNode(name, `${name}-${tick}`));
}

/**
 * The next record made from `record` by the changed verdicts (verdict-record.ts): every node has a
 * verdict (unblocked when it has none), and a replaced Node counts as changed.
 */
function laidOver(
  record: Record<string, NodeResult>,
  first: boolean,
  verdicts: ReadonlyMap<string, NodeResult>,
  before: ReadonlyMap<string, StateNode>,
  nodes: ReadonlyMap<string, StateNode>,
): { record: Record<string, NodeResult>; followed: boolean } {
  const now = (name: string) => verdicts.get(name) ?? unblocked;
  if (first) return { record: ownRecord(Object.fromEntries(NAMES.map((n) => [n, now(n)]))), followed: false };
  const changed = NAMES.filter((n) => record[n] !== now(n) || before.get(n) !== nodes.get(n));
  return {
    record: withChanged(
      record,
      changed.map((n) => [n, now(n)] as const),
    ),
    followed: changed.length > 0,
  };
}

/**
 * Time to the next tick: often a whole 30 s, as a controller's loop steps, so that ticks land
 * exactly where a dedupe window (2 minutes) ends; otherwise anything up to 40 s.
 */
const step = (r: () => number): number => (r() < 0.5 ? 30_000 : Math.floor(r() * 40_000));

const unblocked: NodeResult = { nodePool: 'default', candidate: false, reasons: [], blocked: [] };

describe('BlockedEvents', () => {
  // Records made whole each time, and records made from the last one by the changed verdicts
  // (verdict-record.ts, as evaluate-cluster.ts changedOnly makes them), whose events follow the change.
  it.each(['whole records', 'changed verdicts laid over the last record'])(
    'records what publishing every blocked node every tick records, %s',
    (how) => {
      const over = how !== 'whole records';
      let followed = 0;
      for (let seed = 1; seed <= 20; seed++) {
        const r = rng(seed);
        const clock = new FakeClock(T0);
        const direct = new EventLog(clock, { capacity: 100_000 });
        const incremental = new EventLog(clock, { capacity: 100_000 });
        const blocked = new BlockedEvents(incremental);
        const verdicts = new Map<string, NodeResult>();
        const nodes = new Map(NAMES.map((n) => [n, stateNode(n, `${n}-1`)]));
        let nodesRecord: Record<string, NodeResult> = {};
        for (let tick = 0; tick < 200; tick++) {
          // Now and then a verdict changes (or goes), or a Node is replaced (a new uid): a new evaluation.
          if (tick === 0 || r() < 0.3) {
            const before = new Map(nodes);
            for (const name of NAMES) change(r, name, verdicts, nodes, tick);
            const next = over ? laidOver(nodesRecord, tick === 0, verdicts, before, nodes) : undefined;
            if (next?.followed) followed++;
            nodesRecord = next?.record ?? Object.fromEntries(verdicts);
          }
          const evaluation = { nodes: nodesRecord } as EvalOutput;
          const index = { nodesByName: new Map(nodes) } as ClusterIndex;
          publishAll(direct, evaluation, index);
          blocked.publish(evaluation, index, clock.now());
          clock.advance(step(r));
        }
        const strip = (es: RecordedEvent[]) =>
          es.map((e) => `${e.at - T0} ${e.object.kind}/${e.object.uid} ${e.message}`);
        expect(strip(incremental.list()), `seed ${seed}`).toEqual(strip(direct.list()));
        expect(direct.list().length).toBeGreaterThan(50);
      }
      if (over) expect(followed).toBeGreaterThan(200);
    },
  );
});

/** One busy tick's changes to the nodes' verdicts and objects, with the watch events they cause. */
class BusyNodes {
  readonly verdicts = new Map<string, NodeResult>();
  readonly nodes = new Map<string, StateNode>();
  private serial = 0;

  constructor(private readonly r: () => number) {
    for (let i = 0; i < 8; i++) this.add(this.fresh(), 0, []);
  }

  /** A new name, anywhere in name order. */
  private fresh(): string {
    return `n${String(Math.floor(this.r() * 1e4)).padStart(4, '0')}-${this.serial++}`;
  }

  private verdict(): NodeResult {
    const r = this.r;
    return r() < 0.7 ? verdict(CODES[Math.floor(r() * CODES.length)], `blocked ${Math.floor(r() * 3)}`) : unblocked;
  }

  private add(name: string, tick: number, events: WatchEvent[]): void {
    this.verdicts.set(name, this.verdict());
    this.nodes.set(name, stateNode(name, `${name}-${tick}`));
    events.push(watched('ADDED', 'Node', name), watched('ADDED', 'NodeClaim', `${name}-claim`));
  }

  /** Changes some nodes; returns the watch events. */
  tick(tick: number): WatchEvent[] {
    const events: WatchEvent[] = [];
    for (const name of [...this.verdicts.keys()]) this.change(name, tick, events);
    for (let k = this.r() < 0.4 ? 1 + Math.floor(this.r() * 2) : 0; k > 0; k--) this.add(this.fresh(), tick, events);
    return events;
  }

  private change(name: string, tick: number, events: WatchEvent[]): void {
    const x = this.r();
    const sn = this.nodes.get(name)!;
    const claim = sn.nodeClaim?.metadata.name;
    if (x < 0.04) {
      this.verdicts.delete(name);
      this.nodes.delete(name);
      events.push(watched('DELETED', 'Node', name));
      if (claim) events.push(watched('DELETED', 'NodeClaim', claim));
    } else if (x < 0.16) this.verdicts.set(name, this.verdict());
    else if (x < 0.22) {
      this.nodes.set(name, { ...sn, node: stateNode(name, `${name}-${tick}`).node });
      events.push(watched('MODIFIED', 'Node', name));
    } else if (x < 0.28) {
      // The node's NodeClaim replaced by another: the old one goes, the new one joins.
      const other = `${name}-claim-${tick}`;
      const nodeClaim = { kind: 'NodeClaim', metadata: { name: other, uid: `c-${tick}` } } as NodeClaim;
      this.nodes.set(name, { ...sn, nodeClaim });
      if (claim) events.push(watched('DELETED', 'NodeClaim', claim));
      events.push(watched('ADDED', 'NodeClaim', other));
    } else if (x < 0.31 && claim) {
      // The node's NodeClaim goes and none joins it.
      this.nodes.set(name, { ...sn, nodeClaim: undefined });
      events.push(watched('DELETED', 'NodeClaim', claim));
    }
  }

  /** The evaluation (in name order, unchanged verdicts the same objects) and the index of this tick. */
  read(): { evaluation: EvalOutput; index: ClusterIndex } {
    const sorted = [...this.verdicts.keys()].sort();
    const nodes = ownRecord(Object.fromEntries(sorted.map((n) => [n, this.verdicts.get(n)!])));
    const claims = [...this.nodes.values()].flatMap((sn) =>
      sn.nodeClaim ? [[sn.nodeClaim.metadata.name, sn] as const] : [],
    );
    const index = { nodesByName: new Map(this.nodes), nodeClaimsByName: new Map(claims) } as ClusterIndex;
    return { evaluation: { nodes } as EvalOutput, index };
  }
}

const watched = (type: WatchEvent['type'], kind: string, name: string) =>
  ({ type, object: { kind, metadata: { name } } }) as WatchEvent;

describe('BlockedEvents after whole records followed by verdict identity', () => {
  // A busy tick's records: every node's verdict object is the last one's unless it changed; Nodes
  // and NodeClaims are replaced under unchanged verdicts (a new uid, a NodeClaim of another name, none),
  // nodes come (anywhere in name order) and go; the watch events between two indexes name every
  // Node and NodeClaim that changed, and now and then they are not known (a list in between).
  it('records what publishing every blocked node every tick records', () => {
    let followed = 0;
    let published = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const r = rng(seed);
      const clock = new FakeClock(T0);
      const direct = new EventLog(clock, { capacity: 100_000 });
      const incremental = new EventLog(clock, { capacity: 100_000 });
      const serials = new Map<ClusterIndex, number>();
      // Each tick's watch events; undefined when not known.
      const history: (WatchEvent[] | undefined)[] = [];
      const changes = (from: ClusterIndex, to: ClusterIndex) => {
        const a = serials.get(from);
        const b = serials.get(to);
        if (a === undefined || b === undefined || a > b) return undefined;
        const between = history.slice(a + 1, b + 1);
        return between.some((e) => e === undefined) ? undefined : between.flatMap((e) => e!);
      };
      const blocked = new BlockedEvents(incremental, changes);
      const busy = new BusyNodes(r);
      let last: EvalOutput | undefined;
      for (let tick = 0; tick < 200; tick++) {
        const events = tick > 0 && r() < 0.6 ? busy.tick(tick) : [];
        history.push(r() < 0.05 ? undefined : events);
        const { evaluation, index } = busy.read();
        serials.set(index, tick);
        if (digestOf(evaluation, last).change) followed++;
        last = evaluation;
        publishAll(direct, evaluation, index);
        blocked.publish(evaluation, index, clock.now());
        clock.advance(step(r));
      }
      const strip = (es: RecordedEvent[]) =>
        es.map((e) => `${e.at - T0} ${e.object.kind}/${e.object.name}/${e.object.uid} ${e.message}`);
      expect(strip(incremental.list()), `seed ${seed}`).toEqual(strip(direct.list()));
      published += direct.list().length;
    }
    expect(published).toBeGreaterThan(2000);
    expect(followed).toBeGreaterThan(3000);
  });
});
