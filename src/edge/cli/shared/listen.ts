// SPDX-License-Identifier: Apache-2.0
// Starting a server on a port the user chose: the operating system's refusals (the port is
// taken, or privileged) are the user's to fix, so they become CliErrors (exit 2) that name the
// port and the flag, never "internal error: listen EADDRINUSE".
import type { StatusSource } from '../../../control/runtime/status-source.js';
import { startProbeServer, type ProbeServer } from '../../server/probe-server.js';
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
        `cannot listen on ${where}: port ${port} is already in use (another kpol serve or kpol ` +
          `run?); choose another with ${flag} PORT, or ${flag} 0 for any free port`,
      );
    }
    if (code === 'EACCES')
      throw new CliError(
        `cannot listen on ${where}: permission denied (ports below 1024 need privileges); choose ` +
          `another with ${flag} PORT`,
      );
    if (code === 'EADDRNOTAVAIL')
      throw new CliError(`cannot listen on ${where}: the address is not available on this machine`);
    throw e;
  }
}

/**
 * The kubelet's probe server on every interface at `port` (`--probe-port`), or none when no port
 * was asked for. When it cannot listen, `server` (already started) is closed before the error.
 */
export async function startProbes(
  port: number | undefined,
  source: StatusSource,
  server: { close(): Promise<void> },
): Promise<ProbeServer | undefined> {
  if (port === undefined) return undefined;
  return listenOn('--probe-port', '0.0.0.0', port, () => startProbeServer(port, source)).catch(async (e: unknown) => {
    await server.close();
    throw e;
  });
}
