// SPDX-License-Identifier: Apache-2.0
// Runs the real CLI entry point in-process and captures what it prints.
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
