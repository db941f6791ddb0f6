// SPDX-License-Identifier: Apache-2.0
// `kpol lsp`: the language server for editors (VS Code, Neovim, …) over stdio. The server and
// its protocol library load only when the command runs, so every other command starts as fast.
import { CliError } from '../shared/io.js';
import { parse, type Command } from './command.js';

const usage = `usage: kpol lsp [--stdio]

Runs the kpol language server (Language Server Protocol) on stdin/stdout until the editor
sends \`exit\`: diagnostics with KPOL codes, quick fixes, hover docs, completion, formatting
(\`kpol fmt\`'s) and go to a named schedule's definition. --stdio, which editors pass, is the
only transport. Set-up for VS Code and Neovim: editor/vscode/README.md.`;

export const lspCommand: Command = {
  usage,
  async run(argv) {
    // Clients add --stdio; some add --clientProcessId=N (vscode-languageserver watches that process).
    const { positionals } = parse(argv, { stdio: { type: 'boolean' }, clientProcessId: { type: 'string' } }, usage);
    if (positionals.length > 0) throw new CliError(`no files here: the editor sends them\n\n${usage}`);
    // stdout carries the protocol: anything else printed there would corrupt it.
    console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
    const { startLanguageServer } = await import('../../lsp/server.js');
    startLanguageServer(process.stdin, process.stdout);
    // Never settles: the `exit` notification (or the client's end of stdin) ends the process.
    return new Promise<number>(() => {});
  },
};
