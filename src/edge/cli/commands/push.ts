// SPDX-License-Identifier: Apache-2.0
import { basename } from 'node:path';
import { pushPolicies, type PushFile } from '../../../core/policy/push.js';
import { asCliError, connectCluster, DEFAULT_NAMESPACE, type ClusterFactory } from '../shared/cluster-factory.js';
import { CliError, EXIT_FINDINGS, EXIT_OK, readText } from '../shared/io.js';
import { reportDiagnostics } from '../shared/inputs.js';
import { parse, type Command } from './command.js';

const DEFAULT_NAME = 'kpol-policies';

const usage = `usage: kpol push FILE… [--name CM] [--namespace NS] [--kubeconfig FILE] [--context NAME]

Stores .kpol files in a policy ConfigMap (default ${DEFAULT_NAMESPACE}/${DEFAULT_NAME}), one key
per file named by its base name. The files are checked first, together with the namespace's
other policy ConfigMaps: any error is printed as file:line:col and nothing is written (exit 1).
The write carries the resourceVersion that was read, so a concurrent change is refused (exit 1).`;

export function makePushCommand(connect: ClusterFactory): Command {
  return {
    usage,
    async run(argv, io) {
      const { values, positionals } = parse(
        argv,
        {
          name: { type: 'string', default: DEFAULT_NAME },
          namespace: { type: 'string', default: DEFAULT_NAMESPACE },
          kubeconfig: { type: 'string' },
          context: { type: 'string' },
        },
        usage,
      );
      if (positionals.length === 0) throw new CliError(`no files given\n\n${usage}`);
      const files: PushFile[] = [];
      for (const path of positionals) {
        const key = basename(path);
        if (!/^[-._a-zA-Z0-9]+\.kpol$/.test(key))
          throw new CliError(
            `${path}: a policy file's name must end in .kpol and use only letters, digits, '-', '_' ` +
              `and '.' (it becomes a ConfigMap key)`,
          );
        if (files.some((f) => f.key === key))
          throw new CliError(`${path}: two files named ${key}; ConfigMap keys must be unique`);
        files.push({ key, fileName: path, text: readText(path) });
      }
      const client = await connect({ kubeconfig: values.kubeconfig, context: values.context });
      const r = await asCliError(() => pushPolicies(client, files, { namespace: values.namespace, name: values.name }));
      if (r.kind === 'refused') {
        reportDiagnostics(r.loaded, io);
        io.err(`kpol: the policies have errors; nothing was written to configmap/${values.namespace}/${values.name}`);
        return EXIT_FINDINGS;
      }
      if (r.kind === 'conflict') throw new CliError(`${r.message}; pull and push again`, EXIT_FINDINGS);
      reportDiagnostics(r.loaded, io); // warnings only
      io.out(
        `${r.created ? 'created' : 'updated'} configmap/${values.namespace}/${values.name} ` +
          `(${files.length} file(s), resourceVersion ${r.configMap.metadata.resourceVersion})`,
      );
      return EXIT_OK;
    },
  };
}

export const pushCommand = makePushCommand(connectCluster);
