// SPDX-License-Identifier: Apache-2.0
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Writes a kubeconfig with one cluster, user and context named `kpol-test`, certificates
 * embedded as data so the file stands alone (kubectl, client-node and the components read it).
 */
export function writeKubeconfig(
  path: string,
  opts: { server: string; caCert: string; clientCert: string; clientKey: string },
): string {
  const b64 = (file: string) => readFileSync(file).toString('base64');
  // JSON is valid YAML, and needs no YAML writer here.
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kpol-test', cluster: { server: opts.server, 'certificate-authority-data': b64(opts.caCert) } }],
    users: [
      {
        name: 'kpol-test',
        user: { 'client-certificate-data': b64(opts.clientCert), 'client-key-data': b64(opts.clientKey) },
      },
    ],
    contexts: [{ name: 'kpol-test', context: { cluster: 'kpol-test', user: 'kpol-test' } }],
    'current-context': 'kpol-test',
  };
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  return path;
}
