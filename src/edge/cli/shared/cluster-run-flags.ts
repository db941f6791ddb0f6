// SPDX-License-Identifier: Apache-2.0
// The `kpol run` flags that only matter on a real cluster: the controller's namespace, leader
// election and the probe port. Parsed here so `run.ts` only passes them through.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  leaderElectionProblems,
  type LeaderElectionConfig,
} from '../../../control/leader/lease-elector.js';
import { DEFAULT_NAMESPACE } from './cluster-factory.js';
import { durationFlagMs } from './duration-flag.js';
import { CliError } from './io.js';

export const CLUSTER_RUN_FLAGS = {
  namespace: { type: 'string' },
  'leader-election': { type: 'string' },
  'lease-name': { type: 'string', default: 'kpol-controller' },
  'lease-duration': { type: 'string' },
  'renew-deadline': { type: 'string' },
  'retry-period': { type: 'string' },
  'probe-port': { type: 'string' },
} as const;

export const CLUSTER_RUN_USAGE = `On a real cluster: --namespace NS (default $POD_NAMESPACE, else ${DEFAULT_NAMESPACE})
holds the policy ConfigMaps (label kpol.dev/policy) and the leader Lease; --leader-election
on|off (on with --in-cluster, off with --kubeconfig), --lease-name kpol-controller,
--lease-duration 15s, --renew-deadline 10s, --retry-period 2s; --probe-port PORT serves only
/healthz and /readyz on every interface (for the kubelet).`;

export interface ClusterRunFlags {
  namespace: string;
  leaderElection: Omit<LeaderElectionConfig, 'namespace'> | undefined;
  probePort: number | undefined;
}

type Values = { [K in keyof typeof CLUSTER_RUN_FLAGS]?: string };

function durationMs(text: string | undefined, flag: string, fallback: number): number {
  return text === undefined ? fallback : durationFlagMs(text, flag, '15s');
}

/** `inCluster`: leader election defaults to on in a pod (replicas), off for a local `--kubeconfig` run. */
export function clusterRunFlags(
  v: Values & { 'in-cluster'?: boolean },
  env: Record<string, string | undefined>,
): ClusterRunFlags {
  const namespace = v.namespace ?? env.POD_NAMESPACE ?? DEFAULT_NAMESPACE;
  let probePort: number | undefined;
  if (v['probe-port'] !== undefined) {
    probePort = Number(v['probe-port']);
    if (!Number.isInteger(probePort) || probePort < 0 || probePort > 65535)
      throw new CliError(`--probe-port takes a port number, not \`${v['probe-port']}\``);
  }
  const mode = v['leader-election'] ?? (v['in-cluster'] ? 'on' : 'off');
  if (mode !== 'on' && mode !== 'off') throw new CliError(`--leader-election takes on or off, not \`${mode}\``);
  if (mode === 'off') return { namespace, leaderElection: undefined, probePort };
  const config = {
    name: v['lease-name'] ?? 'kpol-controller',
    // client-go's advice: a unique identity per process, so a restarted pod is a new candidate.
    identity: `${env.POD_NAME ?? hostname()}_${randomBytes(4).toString('hex')}`,
    leaseDurationMs: durationMs(v['lease-duration'], 'lease-duration', DEFAULT_LEASE_DURATION_MS),
    renewDeadlineMs: durationMs(v['renew-deadline'], 'renew-deadline', DEFAULT_RENEW_DEADLINE_MS),
    retryPeriodMs: durationMs(v['retry-period'], 'retry-period', DEFAULT_RETRY_PERIOD_MS),
  };
  const problems = leaderElectionProblems(config);
  if (problems.length) throw new CliError(`leader election: ${problems.join('; ')}`);
  return { namespace, leaderElection: config, probePort };
}
