// SPDX-License-Identifier: Apache-2.0
import { loadPolicies } from '../../../core/policy/load.js';
import { CliError, EXIT_FINDINGS, EXIT_OK } from '../shared/io.js';
import { readPolicySources, reportDiagnostics } from '../shared/inputs.js';
import { parse, type Command } from './command.js';

const usage = `usage: kpol check [--strict] [--format text|json] FILE…

Checks .kpol files together and prints diagnostics (file:line:col), in colour on a terminal
unless NO_COLOR is set. Exit 1 on any error.

  --strict, --deny-warnings   exit 1 on warnings too (for CI)`;

export const checkCommand: Command = {
  usage,
  async run(argv, io) {
    const options = {
      format: { type: 'string', default: 'text' },
      strict: { type: 'boolean', default: false },
      'deny-warnings': { type: 'boolean', default: false },
    } as const;
    const { values, positionals } = parse(argv, options, usage);
    if (positionals.length === 0) throw new CliError(`no files given\n\n${usage}`);
    if (values.format !== 'text' && values.format !== 'json') throw new CliError(`--format takes text or json, not \`${values.format}\``);
    const strict = values.strict || values['deny-warnings'];
    const loaded = loadPolicies(readPolicySources(positionals));
    const count = (s: string) => loaded.files.reduce((n, f) => n + f.diagnostics.filter((d) => d.severity === s).length, 0);
    const failed = !loaded.ok || (strict && count('warning') > 0);
    if (values.format === 'json') {
      io.out(JSON.stringify({ ok: loaded.ok, files: loaded.files.map((f) => ({ file: f.fileName, diagnostics: f.diagnostics })) }, null, 2));
    } else {
      reportDiagnostics(loaded, io);
      const failing = loaded.ok && failed ? '; warnings fail the check (--strict)' : '';
      io.err(`${loaded.files.length} file(s): ${count('error')} error(s), ${count('warning')} warning(s)${failing}`);
    }
    return failed ? EXIT_FINDINGS : EXIT_OK;
  },
};
