// SPDX-License-Identifier: Apache-2.0
// What `kpol run` and `kpol serve` share before they start the embedded cluster: the demo's
// files and the numeric options. Kept apart from serve.ts so that parsing them loads neither
// the simulator nor the servers.
import { packagePath } from '../../../core/package-root.js';
import { DEFAULT_NAMESPACE } from './cluster-factory.js';
import { CliError } from './io.js';

export const DEMO_CLUSTER = packagePath('rules/examples/demo/cluster.yaml');
export const DEMO_POLICY = packagePath('rules/examples/business-hours.kpol');
/** Where `kpol run` and `kpol serve` keep the demo policy, so the editor can load and save it. */
export const DEMO_POLICY_CONFIGMAP = {
  namespace: DEFAULT_NAMESPACE,
  name: 'business-hours',
  key: 'business-hours.kpol',
};

/** Parses and checks the numeric options both commands share. */
export function numbers(values: { speed?: string; port?: string; for?: string; start?: string }): {
  speed: number;
  port: number;
  forSeconds?: number;
  startMs?: number;
} {
  const speed = Number(values.speed);
  const port = Number(values.port);
  if (!(speed > 0)) throw new CliError(`--speed takes a positive number, not \`${values.speed}\``);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError(`--port takes a port number, not \`${values.port}\``);
  const forSeconds = values.for === undefined ? undefined : Number(values.for);
  if (forSeconds !== undefined && !(forSeconds > 0))
    throw new CliError(`--for takes a positive number of seconds, not \`${values.for}\``);
  const startMs = values.start === undefined ? undefined : Date.parse(values.start);
  if (startMs !== undefined && Number.isNaN(startMs))
    throw new CliError(`--start takes an RFC 3339 time, not \`${values.start}\``);
  return { speed, port, ...(forSeconds !== undefined && { forSeconds }), ...(startMs !== undefined && { startMs }) };
}
