// SPDX-License-Identifier: Apache-2.0
// Terminal I/O for the CLI: reading inputs with clear errors, and the exit-code contract
// (0 ok, 1 findings or failures, 2 usage or unreadable input).
import { readFileSync } from 'node:fs';

export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_USAGE = 2;

/** A user-facing failure: printed as `kpol: <message>` with no stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_USAGE,
  ) {
    super(message);
  }
}

export interface Output {
  out(text: string): void;
  err(text: string): void;
  isTTY: boolean;
  /** Whether what goes to `err` (diagnostics) may be coloured; see `colorFor`. */
  errColor?: boolean;
}

/** Colour only on a terminal, and never when NO_COLOR is set to anything but the empty string (no-color.org). */
export function colorFor(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  return Boolean(stream.isTTY) && !env['NO_COLOR'];
}

export const processOutput: Output = {
  out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
  err: (t) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`),
  isTTY: Boolean(process.stdout.isTTY),
  errColor: colorFor(process.stderr, process.env),
};

export function readText(path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
    throw new CliError(`cannot read ${path}: ${why}`);
  }
}

/** Parses an RFC 3339 instant given with --at/--from; a usage error otherwise. */
export function parseInstant(text: string, flag: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms))
    throw new CliError(`${flag} takes an RFC 3339 instant such as 2026-11-22T10:00:00Z, not \`${text}\``);
  return ms;
}
