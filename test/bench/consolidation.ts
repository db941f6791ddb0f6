// SPDX-License-Identifier: Apache-2.0
// `npm run bench`: one single-node consolidation pass over every candidate of a settled cluster,
// with the per-candidate cost as the ratio (Karpenter's users report its 3-minute timeout at
// 300–700 nodes).
import { singleNode } from '../../src/reconciler/methods/single-node.js';
import { simulateMove } from '../../src/reconciler/simulation.js';
import { EventLog } from '../../src/observe/event-log.js';
import { settledRuntime, type Line } from './reconciler.js';

export async function consolidationPassBench(nodes: number, pools: number): Promise<Line[]> {
  const { rt, clock } = await settledRuntime(nodes, pools);
  const index = await rt.view.current();
  const evaluation = await rt.evaluator.evaluate(index, rt.policies, clock.now(), rt.state);
  // The pass must visit every candidate: lift the budgets, and let no candidate succeed early
  // (Karpenter's worst case — every move is simulated and rejected — is what times out at scale).
  for (const p of Object.values(evaluation.nodePools)) p.allowed.Underutilized = null;
  const env = rt.simulationEnv();
  let sims = 0;
  const t = performance.now();
  singleNode.compute({ now: clock.now(), index, evaluation, instanceTypes: rt.instanceTypes, events: new EventLog(clock), newId: () => 'b',
    simulate: (c, consolidation) => { sims++; const r = simulateMove(index, c, consolidation, env); return { ...r, ok: false }; } });
  const passMs = performance.now() - t;
  return [
    { name: `single-node consolidation pass (${sims} simulations)`, value: `${(passMs / 1000).toFixed(2)} s`, goal: '≤ 10 s at 5k', ratio: `${(passMs / Math.max(1, sims)).toFixed(1)} ms per candidate` },
  ];
}
