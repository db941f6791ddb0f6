// SPDX-License-Identifier: Apache-2.0
import { loadPolicies } from '../../policy/load.js';
import { CliError, EXIT_FINDINGS, EXIT_OK } from '../io.js';
import { readPolicySources, reportDiagnostics } from '../inputs.js';
import { parse, type Command } from './command.js';

const usage = `usage: kpol check [--format text|json] FILE…

Checks .kpol files together and prints diagnostics (file:line:col). Exit 1 on any error.`;

export const checkCommand: Command = {
  usage,
  async run(argv, io) {
    const { values, positionals } = parse(argv, { format: { type: 'string', default: 'text' } }, usage);
    if (positionals.length === 0) throw new CliError(`no files given\n\n${usage}`);
    if (values.format !== 'text' && values.format !== 'json') throw new CliError(`--format takes text or json, not \`${values.format}\``);
    const loaded = loadPolicies(readPolicySources(positionals));
    if (values.format === 'json') {
      io.out(JSON.stringify({ ok: loaded.ok, files: loaded.files.map((f) => ({ file: f.fileName, diagnostics: f.diagnostics })) }, null, 2));
    } else {
      reportDiagnostics(loaded, io);
      const count = (s: string) => loaded.files.reduce((n, f) => n + f.diagnostics.filter((d) => d.severity === s).length, 0);
      io.err(`${loaded.files.length} file(s): ${count('error')} error(s), ${count('warning')} warning(s)`);
    }
    return loaded.ok ? EXIT_OK : EXIT_FINDINGS;
  },
};
