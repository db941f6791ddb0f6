// SPDX-License-Identifier: Apache-2.0
// The command table, in the order `kpol --help` lists them. Each command's module is imported
// only when it is needed (dynamic import: a chunk of its own in the build), so `kpol --help`
// and `kpol check` never load what `kpol run` needs.
import type { CommandEntry } from './command.js';

export const COMMANDS: Record<string, CommandEntry> = {
  run: {
    summary: 'run the controller (embedded simulated cluster by default)',
    load: async () => (await import('./run.js')).runCommand,
  },
  serve: {
    summary: 'serve the browser editor in front of the controller (embedded simulated cluster)',
    load: async () => (await import('./serve.js')).serveCommand,
  },
  check: {
    summary: 'check .kpol files and print diagnostics',
    load: async () => (await import('./check.js')).checkCommand,
  },
  fmt: { summary: 'format .kpol files canonically', load: async () => (await import('./fmt.js')).fmtCommand },
  compile: {
    summary: 'print the compiled rule graphs as JSON',
    load: async () => (await import('./compile.js')).compileCommand,
  },
  eval: {
    summary: 'evaluate policies against a cluster snapshot at an instant',
    load: async () => (await import('./eval.js')).evalCommand,
  },
  explain: {
    summary: 'show the rule trace for one node',
    load: async () => (await import('./explain.js')).explainCommand,
  },
  test: { summary: 'run decision fixtures (*.test.yaml)', load: async () => (await import('./test.js')).testCommand },
  simulate: {
    summary: 'run the reconciler in simulated time and write a timeline and an HTML report',
    load: async () => (await import('./simulate.js')).simulateCommand,
  },
  import: {
    summary: 'convert Karpenter NodePools into .kpol policies',
    load: async () => (await import('./import.js')).importCommand,
  },
  export: {
    summary: 'convert .kpol policies into Karpenter NodePools',
    load: async () => (await import('./export.js')).exportCommand,
  },
  lsp: {
    summary: 'run the language server for editors (LSP over stdio)',
    load: async () => (await import('./lsp.js')).lspCommand,
  },
  push: {
    summary: 'store .kpol files in a policy ConfigMap (checked first)',
    load: async () => (await import('./push.js')).pushCommand,
  },
  pull: {
    summary: 'write the policies stored in ConfigMaps to files',
    load: async () => (await import('./pull.js')).pullCommand,
  },
  pause: {
    summary: 'pause voluntary disruption of some reasons and NodePools until a time',
    load: async () => (await import('./pause.js')).pauseCommand,
  },
  resume: {
    summary: 'end a pause before its time',
    load: async () => (await import('./resume.js')).resumeCommand,
  },
};
