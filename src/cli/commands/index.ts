// SPDX-License-Identifier: Apache-2.0
// The command table, in the order `kpol --help` lists them.
import type { Command } from './command.js';
import { checkCommand } from './check.js';
import { compileCommand } from './compile.js';
import { evalCommand } from './eval.js';
import { explainCommand } from './explain.js';
import { exportCommand } from './export.js';
import { fmtCommand } from './fmt.js';
import { importCommand } from './import.js';
import { pullCommand } from './pull.js';
import { pushCommand } from './push.js';
import { runCommand } from './run.js';
import { serveCommand } from './serve.js';
import { simulateCommand } from './simulate.js';
import { testCommand } from './test.js';

export const COMMANDS: Record<string, Command> = {
  run: runCommand,
  serve: serveCommand,
  check: checkCommand,
  fmt: fmtCommand,
  compile: compileCommand,
  eval: evalCommand,
  explain: explainCommand,
  test: testCommand,
  simulate: simulateCommand,
  import: importCommand,
  export: exportCommand,
  push: pushCommand,
  pull: pullCommand,
};
