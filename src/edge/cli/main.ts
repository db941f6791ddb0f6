// SPDX-License-Identifier: Apache-2.0
// `kpol` command dispatch. Every command returns an exit code; user errors are CliErrors,
// anything else is a bug and is reported without a stack trace unless KPOL_DEBUG is set.
import { CliError, EXIT_USAGE, processOutput, type Output } from './shared/io.js';
import { closest, slipDistance } from '../../../grammar/suggest.js';
import { COMMANDS } from './commands/index.js';

const USAGE = `usage: kpol <command> [options]

commands:
${Object.entries(COMMANDS)
  .map(([n, c]) => `  ${n.padEnd(9)} ${c.summary}`)
  .join('\n')}

Run \`kpol <command> --help\` for a command's options.`;

export async function main(argv: string[], io: Output = processOutput): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(USAGE);
    return name ? 0 : EXIT_USAGE;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    const near = closest(name, Object.keys(COMMANDS), slipDistance(name));
    const hint = near === undefined ? '' : `; did you mean \`${near}\`?`;
    io.err(`kpol: unknown command \`${name}\`${hint}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  try {
    const command = await entry.load();
    if (rest.includes('--help') || rest.includes('-h')) {
      io.out(command.usage);
      return 0;
    }
    return await command.run(rest, io);
  } catch (e) {
    if (e instanceof CliError) {
      io.err(`kpol ${name}: ${e.message}`);
      return e.exitCode;
    }
    if (process.env.KPOL_DEBUG) throw e;
    io.err(`kpol ${name}: internal error: ${(e as Error).message ?? String(e)} (set KPOL_DEBUG=1 for details)`);
    return 70;
  }
}
