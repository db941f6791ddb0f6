// SPDX-License-Identifier: Apache-2.0
// Starting a server on a port the user chose: the operating system's refusals (the port is
// taken, or privileged) are the user's to fix, so they become CliErrors (exit 2) that name the
// port and the flag, never "internal error: listen EADDRINUSE".
import { CliError } from './io.js';

/** Runs `start` (which listens on `host:port`); `flag` is the option that chose the port. */
export async function listenOn<T>(flag: string, host: string, port: number, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const where = `${host}:${port}`;
    if (code === 'EADDRINUSE') {
      throw new CliError(
        `cannot listen on ${where}: port ${port} is already in use (another kpol serve or kpol run?); choose another with ${flag} PORT, or ${flag} 0 for any free port`,
      );
    }
    if (code === 'EACCES')
      throw new CliError(
        `cannot listen on ${where}: permission denied (ports below 1024 need privileges); choose another with ${flag} PORT`,
      );
    if (code === 'EADDRNOTAVAIL')
      throw new CliError(`cannot listen on ${where}: the address is not available on this machine`);
    throw e;
  }
}
