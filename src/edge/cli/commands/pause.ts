// SPDX-License-Identifier: Apache-2.0
// `kpol pause`: stops voluntary disruption of some reasons on some NodePools until an instant,
// through a ConfigMap the controller reads (src/core/facts/pauses.ts) — standalone and govern
// mode alike, and a restart keeps it. An end is required: a pause never lasts by accident.
import { parseKpolDuration, parseGoDuration } from '../../../../rules/duration.js';
import { canonicalScope, listPauses, scopeText, writePause } from '../../../core/policy/pause-store.js';
import { pauseTable } from '../shared/pause-table.js';
import { asCliError, connectCluster, DEFAULT_NAMESPACE, type ClusterFactory } from '../shared/cluster-factory.js';
import { CliError, EXIT_FINDINGS, EXIT_OK, parseInstant } from '../shared/io.js';
import { checkNodePoolsExist, PAUSE_SCOPE_OPTIONS, scopeOf } from '../shared/pause-flags.js';
import { parse, type Command } from './command.js';

/** The longest pause: for a rollout or an incident. Longer blocks belong in the policy (`freeze`). */
export const MAX_PAUSE_MS = 31 * 24 * 3_600_000;

const usage = `usage: kpol pause [--reason R]… [--nodepool P]… (--for D | --until T) [--note TEXT] [--by NAME]
                  [--namespace NS] [--kubeconfig FILE] [--context NAME]
       kpol pause --list [--namespace NS] [--kubeconfig FILE] [--context NAME]

Stops voluntary disruption of the given reasons (Empty, Drifted, Underutilized, Expired; default
every reason) on the given NodePools (default every NodePool) until the pause ends: --for a
duration (90m, 2h, 1d) or --until an RFC 3339 instant, at most 31 days ahead. One is required.
Forceful expiration and interruption are not stopped. The pause is the ConfigMap
kpol-pause-<hash of the scope> labelled kpol.dev/pause in NS (default ${DEFAULT_NAMESPACE}); pausing
the same scope again moves its end. It ends by itself; \`kpol resume\` with the same flags ends it
early. --note says why (shown by eval, explain and the status page); --by defaults to $USER.
--list prints the pauses in NS, in force or ended, with what each holds and until when.`;

/** What a pause is made of: none of it goes with --list. */
const LIST_EXCLUDES = ['reason', 'nodepool', 'for', 'until', 'note', 'by'] as const;

function endOf(values: { for?: string; until?: string }, nowMs: number): number {
  if (values.for !== undefined && values.until !== undefined)
    throw new CliError(`give --for or --until, not both\n\n${usage}`);
  if (values.for === undefined && values.until === undefined)
    throw new CliError(`a pause needs an end: --for a duration (90m, 2h) or --until an RFC 3339 instant\n\n${usage}`);
  let until: number;
  if (values.for !== undefined) {
    const seconds = parseKpolDuration(values.for) ?? parseGoDuration(values.for);
    if (seconds === undefined || seconds <= 0)
      throw new CliError(`--for takes a positive duration such as 90m, 2h or 1d, not \`${values.for}\``);
    until = nowMs + seconds * 1000;
  } else {
    until = parseInstant(values.until!, '--until');
    if (until <= nowMs) throw new CliError(`--until ${values.until} is not in the future`);
  }
  if (until - nowMs > MAX_PAUSE_MS)
    throw new CliError('a pause lasts at most 31 days; for a longer block write a `freeze` in the policy');
  return until;
}

export function makePauseCommand(
  connect: ClusterFactory,
  now: () => number = Date.now,
  env: Record<string, string | undefined> = process.env,
): Command {
  return {
    usage,
    async run(argv, io) {
      const { values, positionals } = parse(
        argv,
        {
          ...PAUSE_SCOPE_OPTIONS,
          for: { type: 'string' },
          until: { type: 'string' },
          note: { type: 'string' },
          by: { type: 'string' },
          list: { type: 'boolean' },
        },
        usage,
      );
      if (positionals.length) throw new CliError(`unexpected argument \`${positionals[0]}\`\n\n${usage}`);
      if (values.list) {
        const other = LIST_EXCLUDES.find((o) => values[o] !== undefined);
        if (other) throw new CliError(`--list takes no --${other}\n\n${usage}`);
        const client = await connect({ kubeconfig: values.kubeconfig, context: values.context });
        const pauses = await asCliError(() => listPauses(client, values.namespace));
        io.out(pauseTable(pauses, now()));
        return EXIT_OK;
      }
      const scope = scopeOf(values);
      const untilMs = endOf(values, now());
      const client = await connect({ kubeconfig: values.kubeconfig, context: values.context });
      await asCliError(() => checkNodePoolsExist(client, scope));
      const by = values.by ?? env.USER;
      const r = await asCliError(() =>
        writePause(client, values.namespace, {
          ...scope,
          untilMs,
          ...(by && { by }),
          ...(values.note && { note: values.note }),
        }),
      );
      if (r.kind === 'conflict') throw new CliError(`${r.message}; run kpol pause again`, EXIT_FINDINGS);
      const until = new Date(untilMs).toISOString().replace('.000Z', 'Z');
      const where = `configmap/${values.namespace}/${r.configMap.metadata.name}`;
      io.out(
        `paused ${scopeText(canonicalScope(scope))} until ${until} (${where} ${r.created ? 'created' : 'updated'})`,
      );
      return EXIT_OK;
    },
  };
}

export const pauseCommand = makePauseCommand(connectCluster);
