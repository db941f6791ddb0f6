// SPDX-License-Identifier: Apache-2.0
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseKpolDuration } from '../../../../rules/duration.js';
import { loadPolicies, policySourcesFromConfigMaps } from '../../../core/policy/load.js';
import { simulationObjects } from '../../simulate/cluster-objects.js';
import { renderReport } from '../../report/report.js';
import { simulate } from '../../simulate/simulated-run.js';
import { readWorkload } from '../../simulate/workload.js';
import type { ConfigMap } from '../../../core/cluster/types.js';
import { CliError, EXIT_FINDINGS, EXIT_OK, parseInstant, readText } from '../shared/io.js';
import { snapshotError, reportSnapshotWarnings } from '../shared/cluster-input.js';
import { readPolicySources, reportDiagnostics } from '../shared/inputs.js';
import { createProgress } from '../shared/progress.js';
import { parse, SNAPSHOT_OPTIONS, type Command } from './command.js';

const usage = `usage: kpol simulate --cluster SNAPSHOT [--policy FILE]… --from RFC3339 [--for 7d] [--step 1m]
                     [--workload FILE] [--out DIR]

Runs the real reconciler against the in-memory cluster in simulated time and writes
DIR/timeline.json and DIR/report.html (default DIR: ./kpol-simulation).`;

function duration(text: string, flag: string): number {
  const s = parseKpolDuration(text);
  if (!s) throw new CliError(`${flag} takes a positive duration such as 7d, 12h or 1m, not \`${text}\``);
  return s * 1000;
}

export const simulateCommand: Command = {
  usage,
  async run(argv, io) {
    const { values } = parse(
      argv,
      {
        ...SNAPSHOT_OPTIONS,
        from: { type: 'string' },
        for: { type: 'string', default: '7d' },
        step: { type: 'string', default: '1m' },
        workload: { type: 'string' },
        out: { type: 'string', default: 'kpol-simulation' },
      },
      usage,
    );
    if (!values.cluster || !values.from) throw new CliError(`--cluster and --from are required\n\n${usage}`);
    const fromMs = parseInstant(values.from, '--from');
    const forMs = duration(values.for!, '--for');
    const stepMs = duration(values.step!, '--step');
    const { objects, errors, warnings } = simulationObjects(readText(values.cluster), values.cluster);
    if (errors.length) throw snapshotError(errors, values.cluster);
    reportSnapshotWarnings(warnings, io);
    let workload;
    if (values.workload) {
      let doc: unknown;
      try {
        doc = parseYaml(readText(values.workload));
      } catch (e) {
        throw new CliError(`${values.workload}: ${(e as Error).message.split('\n')[0]}`);
      }
      const r = readWorkload(doc);
      if (!r.workload) throw new CliError(r.errors.map((e) => `${values.workload}: ${e}`).join('\n'));
      workload = r.workload;
    }
    const configMaps = objects.filter((o): o is ConfigMap => o.kind === 'ConfigMap');
    const loaded = loadPolicies(
      [...readPolicySources(values.policy ?? []), ...policySourcesFromConfigMaps(configMaps)],
      fromMs,
    );
    if (reportDiagnostics(loaded, io)) return EXIT_FINDINGS;
    const progress = createProgress({ total: forMs, label: 'simulating' });
    const timeline = await simulate({
      objects: [...objects, ...(workload?.objects ?? [])],
      policies: loaded.policies,
      fromMs,
      forMs,
      stepMs,
      workload: workload?.events,
      onProgress: (done) => progress.update(done),
      wallMs: () => performance.now(),
    });
    progress.finish();
    mkdirSync(values.out!, { recursive: true });
    writeFileSync(join(values.out!, 'timeline.json'), JSON.stringify(timeline));
    writeFileSync(join(values.out!, 'report.html'), renderReport(timeline, `kpol simulation of ${values.cluster}`));
    const s = timeline.summary;
    io.out(
      `simulated ${timeline.ticks} ticks in ${s.wallSeconds.toFixed(1)} s: ${
        Object.entries(s.disruptionsByReason)
          .map(([r, n]) => `${n} ${r}`)
          .join(', ') || 'no disruptions'
      }; cost $${s.startCostPerHour.toFixed(2)}/h → $${s.endCostPerHour.toFixed(2)}/h`,
    );
    io.out(`wrote ${join(values.out!, 'timeline.json')} and ${join(values.out!, 'report.html')}`);
    return EXIT_OK;
  },
};
