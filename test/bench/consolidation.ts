// SPDX-License-Identifier: Apache-2.0
// `npm run bench`: one single-node consolidation pass over every candidate of a settled cluster
// (Karpenter's users report its 3-minute timeout at 300–700 nodes). The pass prepares the
// scheduling input once (src/control/reconciler/simulation-pass.ts); the baseline is the straightforward
// per-candidate rebuild (simulateMove), timed on a sample of the same candidates in the same run.
import type { EvalOutput } from '../../src/core/eval/output.js';
import { EventLog } from '../../src/core/observe/event-log.js';
import type { Candidate } from '../../src/control/reconciler/methods/candidates.js';
import type { MoveSimulation } from '../../src/control/reconciler/methods/method.js';
import { singleNode } from '../../src/control/reconciler/methods/single-node.js';
import { SimulationPass } from '../../src/control/reconciler/simulation-pass.js';
import { simulateMove } from '../../src/control/reconciler/move-simulation.js';
import { settledRuntime, type Line } from './reconciler.js';

/** Baseline moves timed (the naive rebuild costs ~0.1–0.5 s per move at 5k nodes). */
const BASELINE_SAMPLE = 20;

/**
 * The settled cluster and its single-node pass over every candidate: the budgets lifted and no
 * candidate succeeding early (Karpenter's worst case — every move is simulated and rejected — is
 * what times out at scale). `pass` runs it with the given move simulation.
 */
export async function settledPass(nodes: number, pools: number) {
  const { rt, clock } = await settledRuntime(nodes, pools);
  const index = await rt.view.current();
  const evaluation: EvalOutput = await rt.evaluator.evaluate(index, rt.policies, clock.now(), rt.state);
  for (const p of Object.values(evaluation.nodePools)) p.allowed.Underutilized = null;
  const env = rt.simulationEnv();
  const pass = (simulate: (c: readonly Candidate[], consolidation: boolean) => MoveSimulation) =>
    singleNode.compute({
      now: clock.now(),
      index,
      evaluation,
      instanceTypes: rt.instanceTypes,
      events: new EventLog(clock),
      newId: () => 'b',
      simulate: (c, consolidation) => ({ ...simulate(c, consolidation), ok: false }),
    });
  return { index, env, pass };
}

export async function consolidationPassBench(nodes: number, pools: number): Promise<Line[]> {
  const { index, env, pass } = await settledPass(nodes, pools);

  const moves: (readonly Candidate[])[] = [];
  const prepared = new SimulationPass(index, env);
  let t = performance.now();
  pass((c, consolidation) => {
    moves.push(c);
    return prepared.simulate(c, consolidation);
  });
  const passMs = performance.now() - t;

  const sample = moves
    .filter((_, i) => i % Math.max(1, Math.floor(moves.length / BASELINE_SAMPLE)) === 0)
    .slice(0, BASELINE_SAMPLE);
  t = performance.now();
  for (const c of sample) simulateMove(index, c, true, env);
  const naivePerMove = (performance.now() - t) / Math.max(1, sample.length);
  const perMove = passMs / Math.max(1, moves.length);
  return [
    {
      name: `single-node consolidation pass (${nodes} nodes, ${moves.length} moves)`,
      value: `${(passMs / 1000).toFixed(2)} s`,
      goal: '≤ 10 s at 5k',
      ratio:
        `${perMove.toFixed(2)} ms per move; naive rebuild ${naivePerMove.toFixed(1)} ms per move ` +
        `(sampled on ${sample.length}): ${(naivePerMove / perMove).toFixed(0)}× faster,` +
        ` ${((naivePerMove * moves.length) / 1000).toFixed(0)} s projected`,
    },
  ];
}
