// SPDX-License-Identifier: Apache-2.0
// The kpol extension for VS Code: every feature comes from `kpol lsp` (the language server the
// CLI ships), started over stdio by vscode-languageclient for the workspace's .kpol files. This
// file only says how to start it; the command is a setting (kpol.server.command) so that a kpol
// installed elsewhere, or a checkout (`node /path/to/kpol/src/edge/cli/bin.mjs lsp`), works too.
const { workspace } = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

async function activate() {
  const [command, ...args] = workspace.getConfiguration('kpol').get('server.command', ['npx', 'kpol', 'lsp']);
  // vscode-languageclient adds --stdio and runs the command in the workspace folder. npx is a
  // .cmd script on Windows, which only a shell can start.
  const run = { command, args, transport: TransportKind.stdio, options: { shell: process.platform === 'win32' } };
  client = new LanguageClient(
    'kpol',
    'kpol',
    { run, debug: run },
    {
      documentSelector: [{ language: 'kpol' }],
      // The server checks open files with the workspace's closed ones; tell it when those change.
      synchronize: { fileEvents: workspace.createFileSystemWatcher('**/*.kpol') },
    },
  );
  await client.start();
}

function deactivate() {
  return client?.stop();
}

module.exports = { activate, deactivate };
