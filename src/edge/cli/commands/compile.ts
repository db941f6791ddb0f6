// SPDX-License-Identifier: Apache-2.0
import { compile } from '../../../../rules/compile.js';
import { loadPolicies } from '../../../core/policy/load.js';
import { CliError, EXIT_FINDINGS, EXIT_OK } from '../shared/io.js';
import { readPolicySources, reportDiagnostics } from '../shared/inputs.js';
import { parse, type Command } from './command.js';

const usage = `usage: kpol compile FILE…

Prints the rule graphs (json-rules-engine JSON) of the policies in the files.`;

export const compileCommand: Command = {
  usage,
  async run(argv, io) {
    const { positionals } = parse(argv, {}, usage);
    if (positionals.length === 0) throw new CliError(`no files given\n\n${usage}`);
    const loaded = loadPolicies(readPolicySources(positionals));
    if (reportDiagnostics(loaded, io)) return EXIT_FINDINGS;
    const graphs = loaded.policies.map(compile);
    io.out(JSON.stringify(graphs.length === 1 ? graphs[0] : graphs, null, 2));
    return EXIT_OK;
  },
};
