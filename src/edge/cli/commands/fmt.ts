// SPDX-License-Identifier: Apache-2.0
import { writeFileSync } from 'node:fs';
import { formatSource } from '../../../../grammar/format.js';
import { renderDiagnostics } from '../../../../grammar/print-diagnostics.js';
import { CliError, EXIT_FINDINGS, EXIT_OK, readText } from '../shared/io.js';
import { parse, type Command } from './command.js';

const usage = `usage: kpol fmt [--write | --check] FILE…

Prints the canonical form of each file. --write rewrites files in place; --check lists files
that are not canonical and exits 1. Files with syntax errors are never rewritten.`;

export const fmtCommand: Command = {
  usage,
  async run(argv, io) {
    const { values, positionals } = parse(argv, { write: { type: 'boolean' }, check: { type: 'boolean' } }, usage);
    if (positionals.length === 0) throw new CliError(`no files given\n\n${usage}`);
    if (values.write && values.check) throw new CliError('--write and --check cannot be combined');
    let exit = EXIT_OK;
    for (const file of positionals) {
      const text = readText(file);
      const { value, diagnostics, omitted } = formatSource(text);
      if (value === undefined) {
        io.err(renderDiagnostics(file, text, diagnostics, { omitted }));
        exit = EXIT_FINDINGS;
        continue;
      }
      if (values.check) {
        if (value !== text) {
          io.out(file);
          exit = EXIT_FINDINGS;
        }
      } else if (values.write) {
        if (value !== text) writeFileSync(file, value);
      } else io.out(value.endsWith('\n') ? value.slice(0, -1) : value);
    }
    return exit;
  },
};
