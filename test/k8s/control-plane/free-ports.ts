// SPDX-License-Identifier: Apache-2.0
import { createServer, type Server } from 'node:net';

/**
 * Returns `count` distinct TCP ports that were free on 127.0.0.1 a moment ago. All listeners are
 * held open until every port is known, so the ports differ from each other; another process can
 * still take one before our server binds it, which start-up reports as a failed process.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      ports.push(
        await new Promise<number>((resolve, reject) => {
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => {
            const address = server.address();
            if (address && typeof address === 'object') resolve(address.port);
            else reject(new Error('no port assigned'));
          });
        }),
      );
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}
