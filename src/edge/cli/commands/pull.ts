// SPDX-License-Identifier: Apache-2.0
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pullPolicies } from '../../../core/policy/pull.js';
import { asCliError, connectCluster, DEFAULT_NAMESPACE, type ClusterFactory } from '../shared/cluster-factory.js';
import { CliError, EXIT_OK } from '../shared/io.js';
import { parse, type Command } from './command.js';

const usage = `usage: kpol pull [--out DIR] [--name CM] [--namespace NS] [--kubeconfig FILE] [--context NAME]

Writes the .kpol keys of the policy ConfigMaps in the namespace (default ${DEFAULT_NAMESPACE}), or
of the one named by --name, one file per key into DIR (default the current folder), and prints
each ConfigMap's status (\`valid\`, or the errors that keep its current version out).`;

export function makePullCommand(connect: ClusterFactory): Command {
  return {
    usage,
    async run(argv, io) {
      const { values, positionals } = parse(
        argv,
        {
          out: { type: 'string', default: '.' },
          name: { type: 'string' },
          namespace: { type: 'string', default: DEFAULT_NAMESPACE },
          kubeconfig: { type: 'string' },
          context: { type: 'string' },
        },
        usage,
      );
      if (positionals.length) throw new CliError(`unexpected argument \`${positionals[0]}\`\n\n${usage}`);
      const client = await connect({ kubeconfig: values.kubeconfig, context: values.context });
      const r = await asCliError(() => pullPolicies(client, values.namespace, values.name));
      if (values.name !== undefined && r.statuses.length === 0)
        throw new CliError(`configmap/${values.namespace}/${values.name} not found`);
      if (r.clashes.length) {
        throw new CliError(
          r.clashes.map((c) => `${c.key} is in ${c.configMaps.join(' and ')}`).join('\n') +
            '\nthese cannot share one folder: pull them one at a time with --name',
        );
      }
      try {
        mkdirSync(values.out, { recursive: true });
        for (const f of r.files) writeFileSync(join(values.out, f.key), f.text);
      } catch (e) {
        throw new CliError(`cannot write to ${values.out}: ${(e as Error).message}`);
      }
      for (const f of r.files) io.out(`${join(values.out, f.key)} ← ${f.configMap}`);
      for (const s of r.statuses) io.err(`${s.configMap}: ${s.status ?? 'not yet seen by the controller'}`);
      return EXIT_OK;
    },
  };
}

export const pullCommand = makePullCommand(connectCluster);
