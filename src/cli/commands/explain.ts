// SPDX-License-Identifier: Apache-2.0
import { explainNode, renderExplanation } from '../../eval/explain.js';
import { CliError, EXIT_OK, parseInstant } from '../io.js';
import { policiesFor, readCluster } from '../cluster-input.js';
import { parse, type Command } from './command.js';

const usage = `usage: kpol explain --cluster SNAPSHOT --node NAME [--policy FILE]… [--at RFC3339] [--output text|json]

Prints the rule trace for one node: which rules fired with the fact values they saw, and why
the node is or is not a disruption candidate.`;

export const explainCommand: Command = {
  usage,
  async run(argv, io) {
    const { values } = parse(argv, {
      cluster: { type: 'string' }, node: { type: 'string' }, policy: { type: 'string', multiple: true }, at: { type: 'string' }, output: { type: 'string', default: 'text' },
    }, usage);
    if (!values.cluster || !values.node) throw new CliError(`--cluster and --node are required\n\n${usage}`);
    const at = values.at ? parseInstant(values.at, '--at') : Date.now();
    const index = readCluster(values.cluster);
    const { policies } = policiesFor(index, values.policy ?? [], io, at);
    const e = await explainNode(index, policies, values.node, at);
    if (!e) throw new CliError(`no Node named \`${values.node}\` in ${values.cluster}`);
    io.out(values.output === 'json' ? JSON.stringify(e, null, 2) : renderExplanation(e));
    return EXIT_OK;
  },
};
