// SPDX-License-Identifier: Apache-2.0
// A longer bug hunt than CI runs: N generated cases from SEED, all four checkers on each, one
// line per case (duration, commands started, violations with the case to replay).
//   npx tsx test/reconciler/properties/hunt.mts SEED N      (env STEP=10000 for 10 s steps, MAXH=2)
import fc from 'fast-check';
import { checkBudgets, checkHolds, checkInstances, checkReplacementsFirst } from './checks.js';
import { caseArb } from './generators.js';
import { runCase } from './harness.js';
import { renderPolicies } from './model.js';

const seed = Number(process.argv[2] ?? 1);
const n = Number(process.argv[3] ?? 5);
const samples = fc.sample(
  caseArb({ stepMs: Number(process.env.STEP ?? 30_000), maxHours: Number(process.env.MAXH ?? 4) }),
  { seed, numRuns: n },
);
for (const [k, spec] of samples.entries()) {
  const t0 = performance.now();
  const tr = await runCase(spec);
  const dt = performance.now() - t0;
  const v = [...checkBudgets(tr), ...checkHolds(tr), ...checkReplacementsFirst(tr), ...checkInstances(tr)];
  const methods: Record<string, number> = {};
  for (const s of tr.starts)
    methods[`${s.command.method}/${s.command.reason}`] = (methods[`${s.command.method}/${s.command.reason}`] ?? 0) + 1;
  console.log(
    `${k} ticks=${spec.ticks} ${dt.toFixed(0)}ms pools=${spec.pools.length} ` +
      `maxNodeClaims=${Math.max(0, ...tr.ticks.map((t) => t.ncs.length))} ` +
      `starts=${JSON.stringify(methods)} violations=${v.length} ` +
      `perturb=${spec.perturbations.map((p) => `${p.kind}@${p.atTick}`).join(',')}`,
  );
  if (v.length)
    console.log(
      `${v.slice(0, 10).join('\n')}\n${renderPolicies(spec.policies, spec.clusterBudget)}${JSON.stringify(spec)}`,
    );
}
