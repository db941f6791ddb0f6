// SPDX-License-Identifier: Apache-2.0
// The shape of a CLI command and argument parsing shared by all of them.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { closest } from '../../../../grammar/suggest.js';
import { CliError, type Output } from '../shared/io.js';

/** A command's module: its usage text and what it does. */
export interface Command {
  usage: string;
  run(argv: string[], io: Output): Promise<number>;
}

/**
 * A row of the command table: what `kpol --help` lists, and how to load the command. The
 * module (and what it imports: the Kubernetes client, the simulator, the servers) is loaded
 * only when the command runs or its usage is asked for.
 */
export interface CommandEntry {
  summary: string;
  load(): Promise<Command>;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The options of every command that reads a cluster snapshot and policy files. */
export const SNAPSHOT_OPTIONS = {
  cluster: { type: 'string' },
  policy: { type: 'string', multiple: true },
} as const;

/** node:util parseArgs with usage errors turned into CliErrors (exit 2). */
export function parse<O extends Options>(argv: string[], options: O, usage: string) {
  const unknown = unknownOption(argv, options);
  if (unknown) throw new CliError(`${unknown}\n\n${usage}`);
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new CliError(`${(e as Error).message}\n\n${usage}`);
  }
}

/**
 * The first flag the command does not take, said shortly and with a guess. Found from parseArgs'
 * tokens in lenient mode rather than from the wording of Node's strict-mode error.
 */
function unknownOption(argv: string[], options: Options): string | undefined {
  const { tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true });
  const token = tokens.find((t) => t.kind === 'option' && !Object.hasOwn(options, t.name));
  if (token?.kind !== 'option') return undefined;
  const known = Object.keys(options).map((o) => `--${o}`);
  // A short option (`-x`) is too short to guess from.
  const guess = token.rawName.startsWith('--') ? closest(token.rawName, known) : undefined;
  return `unknown option \`${token.rawName}\`${guess ? `; did you mean \`${guess}\`?` : ''}`;
}
