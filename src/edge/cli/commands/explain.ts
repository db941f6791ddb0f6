// SPDX-License-Identifier: Apache-2.0
import { explainNode, findMachine, renderExplanation } from '../../../core/eval/explain.js';
import { CliError, EXIT_OK, parseInstant } from '../shared/io.js';
import { policiesFor, readCluster } from '../shared/cluster-input.js';
import { parse, type Command } from './command.js';

const usage = `usage: kpol explain --cluster SNAPSHOT --node NAME [--policy FILE]… [--at RFC3339]
                    [--output text|json]

Prints the rule trace for one node: which rules fired with the fact values they saw, and why
the node is or is not a disruption candidate. NAME is a Node name, a NodeClaim name, a
providerID or an instance id (the providerID's last segment, e.g. i-0abc…).`;

/** A few of the snapshot's Node names, to show what --node takes. */
function known(index: ReturnType<typeof readCluster>): string {
  const names = index.stateNodes.map((sn) => sn.name);
  if (names.length === 0) return ' (it has no nodes)';
  return `; its nodes: ${names.slice(0, 5).join(', ')}${names.length > 5 ? `, … (${names.length})` : ''}`;
}

export const explainCommand: Command = {
  usage,
  async run(argv, io) {
    const { values } = parse(
      argv,
      {
        cluster: { type: 'string' },
        node: { type: 'string' },
        policy: { type: 'string', multiple: true },
        at: { type: 'string' },
        output: { type: 'string', default: 'text' },
      },
      usage,
    );
    if (!values.cluster || !values.node) throw new CliError(`--cluster and --node are required\n\n${usage}`);
    const at = values.at ? parseInstant(values.at, '--at') : Date.now();
    const index = readCluster(values.cluster, io);
    const loaded = policiesFor(index, values.policy ?? [], io, at);
    const { matches } = findMachine(index, values.node);
    if (matches.length > 1)
      throw new CliError(
        `\`${values.node}\` names ${matches.length} machines in ${values.cluster} ` +
          `(${matches.join(', ')}): give a Node or NodeClaim name`,
      );
    const e = await explainNode(
      index,
      loaded.policies,
      values.node,
      at,
      new Map(loaded.files.map((f) => [f.fileName, f.text])),
    );
    if (!e)
      throw new CliError(
        `no Node, NodeClaim, providerID or instance id \`${values.node}\` in ${values.cluster}${known(index)}`,
      );
    io.out(values.output === 'json' ? JSON.stringify(e, null, 2) : renderExplanation(e));
    return EXIT_OK;
  },
};
