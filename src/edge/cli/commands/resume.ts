// SPDX-License-Identifier: Apache-2.0
// `kpol resume`: ends a pause before its time — the pause of exactly the scope the flags name
// (as `kpol pause` was given them), or with --all every pause in the namespace.
import { pauseMessage } from '../../../core/facts/pauses.js';
import { removePauses, scopeText } from '../../../core/policy/pause-store.js';
import { asCliError, connectCluster, DEFAULT_NAMESPACE, type ClusterFactory } from '../shared/cluster-factory.js';
import { CliError, EXIT_FINDINGS, EXIT_OK } from '../shared/io.js';
import { PAUSE_SCOPE_OPTIONS, scopeOf } from '../shared/pause-flags.js';
import { parse, type Command } from './command.js';

const usage = `usage: kpol resume ([--reason R]… [--nodepool P]… | --all)
                   [--namespace NS] [--kubeconfig FILE] [--context NAME]

Ends the pause \`kpol pause\` made with the same --reason and --nodepool flags (none: the pause of
every reason on every NodePool), or with --all every pause in NS (default ${DEFAULT_NAMESPACE}).
Each is deleted with the resourceVersion read as a precondition. A scope with no pause is exit 1,
and the pauses there are listed.`;

export function makeResumeCommand(connect: ClusterFactory): Command {
  return {
    usage,
    async run(argv, io) {
      const { values, positionals } = parse(argv, { ...PAUSE_SCOPE_OPTIONS, all: { type: 'boolean' } }, usage);
      if (positionals.length) throw new CliError(`unexpected argument \`${positionals[0]}\`\n\n${usage}`);
      const scope = scopeOf(values);
      if (values.all && (scope.reasons.length || scope.nodePools.length))
        throw new CliError(`--all resumes every pause; give it without --reason or --nodepool\n\n${usage}`);
      const client = await connect({ kubeconfig: values.kubeconfig, context: values.context });
      const r = await asCliError(() =>
        removePauses(client, values.namespace, values.all ? { all: true } : { all: false, scope }),
      );
      if (r.kind === 'not-found') {
        io.err(`kpol resume: no pause of ${scopeText(scope)} in namespace ${values.namespace}`);
        for (const p of r.remaining) io.err(`  ${pauseMessage(p)}`);
        if (r.remaining.length === 0) io.err('  (there are no pauses)');
        return EXIT_FINDINGS;
      }
      for (const p of r.removed) io.out(`resumed ${scopeText(p)} (${p.source} deleted)`);
      if (r.kind === 'conflict') throw new CliError(`${r.message}; run kpol resume again`, EXIT_FINDINGS);
      if (r.removed.length === 0) io.out(`no pauses in namespace ${values.namespace}`);
      return EXIT_OK;
    },
  };
}

export const resumeCommand = makeResumeCommand(connectCluster);
