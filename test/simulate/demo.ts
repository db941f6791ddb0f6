// SPDX-License-Identifier: Apache-2.0
// The shipped demo (rules/examples/demo/ governed by business-hours.kpol), as `kpol simulate`
// would read it from the files, for simulation tests.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { expect } from 'vitest';
import { loadPolicies } from '../../src/core/policy/load.js';
import { simulationObjects } from '../../src/edge/simulate/cluster-objects.js';
import type { SimulateOptions } from '../../src/edge/simulate/simulated-run.js';
import { readWorkload } from '../../src/edge/simulate/workload.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const read = (path: string) => readFileSync(`${ROOT}${path}`, 'utf8');

/** The demo's objects, policies and workload events; the caller adds the period and step. */
export function demoInputs(
  cluster = 'rules/examples/demo/cluster.yaml',
): Pick<SimulateOptions, 'objects' | 'policies' | 'workload'> {
  const { objects, errors } = simulationObjects(read(cluster), cluster);
  expect(errors).toEqual([]);
  const loaded = loadPolicies([{ fileName: 'business-hours.kpol', text: read('rules/examples/business-hours.kpol') }]);
  expect(loaded.ok).toBe(true);
  const { workload } = readWorkload(parseYaml(read('rules/examples/demo/workload.yaml')));
  return { objects: [...objects, ...workload!.objects], policies: loaded.policies, workload: workload!.events };
}
