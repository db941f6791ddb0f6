// SPDX-License-Identifier: Apache-2.0
import { loadPolicies } from '../../../core/policy/load.js';
import { CliError, EXIT_FINDINGS, EXIT_OK } from '../shared/io.js';
import { readPolicySources, reportDiagnostics } from '../shared/inputs.js';
import { parse, type Command } from './command.js';

const usage = `usage: kpol check [--strict] [--format text|json] FILE…

Checks .kpol files together and prints diagnostics (file:line:col), in colour on a terminal
unless NO_COLOR is set, at most 100 per file (JSON: \`omitted\` counts the rest). Exit 1 on
any error.

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
    if (values.format !== 'text' && values.format !== 'json')
      throw new CliError(`--format takes text or json, not \`${values.format}\``);
    const strict = values.strict || values['deny-warnings'];
    const loaded = loadPolicies(readPolicySources(positionals));
    const count = (s: string) =>
      loaded.files.reduce((n, f) => n + f.diagnostics.filter((d) => d.severity === s).length, 0);
    const omitted = loaded.files.reduce((n, f) => n + (f.omitted ?? 0), 0);
    // Diagnostics past the per-file limit may be warnings: under --strict they fail the check.
    const failed = !loaded.ok || (strict && (count('warning') > 0 || omitted > 0));
    if (values.format === 'json') {
      const files = loaded.files.map((f) => ({
        file: f.fileName,
        diagnostics: f.diagnostics,
        omitted: f.omitted ?? 0,
      }));
      io.out(JSON.stringify({ ok: loaded.ok, files }, null, 2));
    } else {
      reportDiagnostics(loaded, io);
      const failing = loaded.ok && failed ? '; warnings fail the check (--strict)' : '';
      const more = omitted > 0 ? `, ${omitted} more not shown` : '';
      const counts = `${count('error')} error(s), ${count('warning')} warning(s)${more}`;
      io.err(`${loaded.files.length} file(s): ${counts}${failing}`);
    }
    return failed ? EXIT_FINDINGS : EXIT_OK;
  },
};
