// SPDX-License-Identifier: Apache-2.0
import { Evaluator } from '../../../core/eval/evaluate-cluster.js';
import { renderText } from '../../../core/eval/output.js';
import { planDecisions } from '../../../control/reconciler/plan.js';
import { CliError, EXIT_OK, parseInstant } from '../shared/io.js';
import { policiesFor, readCluster } from '../shared/cluster-input.js';
import { parse, SNAPSHOT_OPTIONS, type Command } from './command.js';

const usage = `usage: kpol eval --cluster SNAPSHOT [--policy FILE]… [--at RFC3339] [--output json|text]

Evaluates the policies (files, plus policy ConfigMaps in the snapshot; NodePools no policy
governs use their own spec.disruption, as Karpenter would) against a cluster snapshot
(\`kubectl get -o yaml\` output) at an instant (default: now), and prints allowed
disruptions per NodePool and reason, candidates and why-not per node, and next decisions.`;

export const evalCommand: Command = {
  usage,
  async run(argv, io) {
    const { values } = parse(
      argv,
      {
        ...SNAPSHOT_OPTIONS,
        at: { type: 'string' },
        output: { type: 'string', default: 'text' },
      },
      usage,
    );
    if (!values.cluster) throw new CliError(`--cluster is required\n\n${usage}`);
    if (values.output !== 'json' && values.output !== 'text')
      throw new CliError(`--output takes json or text, not \`${values.output}\``);
    const at = values.at ? parseInstant(values.at, '--at') : Date.now();
    const index = readCluster(values.cluster, io);
    const { policies } = policiesFor(index, values.policy ?? [], io, at);
    const result = await new Evaluator().evaluate(index, policies, at);
    result.decisions = planDecisions(index, result, policies, at);
    io.out(values.output === 'json' ? JSON.stringify(result, null, 2) : renderText(result));
    return EXIT_OK;
  },
};
