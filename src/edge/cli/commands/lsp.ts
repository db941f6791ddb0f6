// SPDX-License-Identifier: Apache-2.0
// `kpol lsp`: the language server for editors (VS Code, Neovim, …) over stdio. The server and
// its protocol library load only when the command runs, so every other command starts as fast.
import type { ClusterWords } from '../../../../rules/completion.js';
import { CliError, readText, type Output } from '../shared/io.js';
import { reportSnapshotWarnings, snapshotError } from '../shared/cluster-input.js';
import { parse, type Command } from './command.js';

const usage = `usage: kpol lsp [--stdio] [--cluster SNAPSHOT]

Runs the kpol language server (Language Server Protocol) on stdin/stdout until the editor
sends \`exit\`: diagnostics with KPOL codes, quick fixes, hover docs, completion, formatting
(\`kpol fmt\`'s) and go to a named schedule's definition. --stdio, which editors pass, is the
only transport. Set-up for VS Code and Neovim: editor/vscode/README.md.

  --cluster SNAPSHOT   also complete the snapshot's NodePool names, label keys and values,
                       and namespaces (a snapshot as \`kpol eval\` reads it)`;

export const lspCommand: Command = {
  usage,
  async run(argv, io) {
    // Clients add --stdio; some add --clientProcessId=N (vscode-languageserver watches that process).
    const options = {
      stdio: { type: 'boolean' },
      clientProcessId: { type: 'string' },
      cluster: { type: 'string' },
    } as const;
    const { values, positionals } = parse(argv, options, usage);
    if (positionals.length > 0) throw new CliError(`no files here: the editor sends them\n\n${usage}`);
    const [{ startLanguageServer }, words] = await Promise.all([
      import('../../lsp/server.js'),
      values.cluster === undefined ? undefined : clusterWordsOf(values.cluster, io),
    ]);
    // stdout carries the protocol: anything else printed there would corrupt it.
    console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
    startLanguageServer(process.stdin, process.stdout, words);
    // Never settles: the `exit` notification (or the client's end of stdin) ends the process.
    return new Promise<number>(() => {});
  },
};

/** The completion words of a snapshot file; a snapshot that cannot be read stops the command (exit 1). */
async function clusterWordsOf(path: string, io: Output): Promise<ClusterWords> {
  const [{ simulationObjects }, { clusterWords }] = await Promise.all([
    import('../../simulate/cluster-objects.js'),
    import('../../../core/cluster/cluster-words.js'),
  ]);
  const { objects, errors, warnings } = simulationObjects(readText(path), path);
  if (errors.length) throw snapshotError(errors, path);
  reportSnapshotWarnings(warnings, io); // on stderr: stdout is the protocol's
  return clusterWords(objects);
}
