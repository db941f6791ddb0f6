// SPDX-License-Identifier: Apache-2.0
// The shape of a CLI command and argument parsing shared by all of them.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError, type Output } from '../io.js';

export interface Command {
  summary: string;
  usage: string;
  run(argv: string[], io: Output): Promise<number>;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs with usage errors turned into CliErrors (exit 2). */
export function parse<O extends Options>(argv: string[], options: O, usage: string) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new CliError(`${(e as Error).message}\n\n${usage}`);
  }
}
