// SPDX-License-Identifier: Apache-2.0
// Runs the real CLI entry point in-process and captures what it prints.
import type { Command } from '../../src/edge/cli/commands/command.js';
import { main } from '../../src/edge/cli/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(...argv: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    out: (t) => {
      stdout += t.endsWith('\n') ? t : `${t}\n`;
    },
    err: (t) => {
      stderr += t.endsWith('\n') ? t : `${t}\n`;
    },
    isTTY: false,
  });
  return { code, stdout, stderr };
}

/**
 * Runs one command's module directly (a test may hand it a client of its own); a thrown usage
 * error is printed and its exit code returned, as main() does.
 */
export async function runCommand(command: Command, ...argv: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await command
    .run(argv, {
      out: (t) => {
        stdout += `${t}\n`;
      },
      err: (t) => {
        stderr += `${t}\n`;
      },
      isTTY: false,
    })
    .catch((e: { exitCode?: number; message: string }) => {
      stderr += e.message;
      return e.exitCode ?? 99;
    });
  return { code, stdout, stderr };
}
