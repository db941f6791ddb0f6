// SPDX-License-Identifier: Apache-2.0
// DisruptionBlocked events published only for the nodes whose verdict or objects changed (and for
// those whose windows ended) record exactly what publishing every blocked node every tick records,
// over a generated run of evaluations in which verdicts, messages and node objects change.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { ClusterIndex, StateNode } from '../../src/core/cluster/state.js';
import type { Node } from '../../src/core/cluster/types.js';
import type { EvalOutput, NodeResult } from '../../src/core/eval/output.js';
import { EventLog } from '../../src/core/observe/event-log.js';
import type { RecordedEvent } from '../../src/core/observe/recorder.js';
import { BlockedEvents } from '../../src/control/reconciler/blocked-events.js';

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
  nodeClaim: { metadata: { name: `${name}-claim`, uid: `c-${uid}` } } as StateNode['nodeClaim'],
  pods: [],
});

/** Every event of every blocked node, published each tick: what BlockedEvents must equal. */
function publishAll(log: EventLog, evaluation: EvalOutput, index: ClusterIndex): void {
  for (const [name, n] of Object.entries(evaluation.nodes)) {
    if (n.blocked.length === 0) continue;
    const sn = index.nodesByName.get(name)!;
    const message = n.blocked[0].message.charAt(0).toUpperCase() + n.blocked[0].message.slice(1);
    for (const o of [sn.node!, sn.nodeClaim!])
      log.publish({
        type: 'Normal',
        reason: 'DisruptionBlocked',
        message,
        object: { kind: o === sn.node ? 'Node' : 'NodeClaim', name: o.metadata.name, uid: o.metadata.uid },
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

describe('BlockedEvents', () => {
  it('records what publishing every blocked node every tick records', () => {
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
          for (const name of NAMES) change(r, name, verdicts, nodes, tick);
          nodesRecord = Object.fromEntries(verdicts);
        }
        const evaluation = { nodes: nodesRecord } as EvalOutput;
        const index = { nodesByName: new Map(nodes) } as ClusterIndex;
        publishAll(direct, evaluation, index);
        blocked.publish(evaluation, index, clock.now());
        clock.advance(Math.floor(r() * 40_000));
      }
      const strip = (es: RecordedEvent[]) =>
        es.map((e) => `${e.at - T0} ${e.object.kind}/${e.object.uid} ${e.message}`);
      expect(strip(incremental.list()), `seed ${seed}`).toEqual(strip(direct.list()));
      expect(direct.list().length).toBeGreaterThan(50);
    }
  });
});
