// SPDX-License-Identifier: Apache-2.0
// What both cluster modes (standalone in run-cluster.ts, govern in run-govern.ts) start around
// the object that ticks: the policy ConfigMaps, leader election, the status server, the probes
// and the informers, in the order that keeps /readyz honest (services first, informers last).
import type { PolicySpec } from '../../../../rules/model.js';
import type { PolicySource } from '../../../core/policy/load.js';
import type { Clock } from '../../../core/clock.js';
import type { Logger } from '../../../core/observe/logger.js';
import type { Metrics } from '../../../core/observe/metrics.js';
import { formatError } from '../../../core/policy/configmap-status.js';
import { unevaluableFile, type EvaluateAt } from '../../../core/policy/trial-eval.js';
import { VIEW_KINDS } from '../../../control/reconciler/cluster-view.js';
import { ClusterServices, type ServicesHost } from '../../../control/runtime/cluster-services.js';
import { CheckedSource } from '../../../control/runtime/readiness.js';
import type { StatusSource } from '../../../control/runtime/status-source.js';
import type { KubeClusterClient } from '../../kube/kube-cluster.js';
import { startStatusServer, type StatusServer } from '../../server/status-server.js';
import { CliError, EXIT_FINDINGS } from '../shared/io.js';
import { listenOn, startProbes } from '../shared/listen.js';
import type { ClusterRunOptions } from './run-cluster.js';

/**
 * Check proves a file well-formed, not that it evaluates (issue 13): one trial before acting.
 * A `--policy` file that cannot evaluate is refused with its location, and the client closed.
 */
export async function refuseUnevaluable(
  client: KubeClusterClient,
  policies: readonly PolicySpec[],
  files: readonly PolicySource[],
  evaluateAt: EvaluateAt,
  nowMs: number,
): Promise<void> {
  const unevaluable = await unevaluableFile(policies, files, evaluateAt, nowMs);
  if (!unevaluable) return;
  client.close();
  throw new CliError(formatError(unevaluable), EXIT_FINDINGS);
}

export interface ServeClusterOptions {
  client: KubeClusterClient;
  clock: Clock;
  logger: Logger;
  run: ClusterRunOptions;
  files: readonly PolicySource[];
  metrics: Metrics;
  /** The host's status, before the readiness checks are added to it. */
  status: StatusSource;
  /** Leadership lost: the caller stops, so a restart begins from cluster state. */
  stop: () => void;
}

export interface ServedCluster {
  services: ClusterServices;
  server: StatusServer;
  /** Whether the run ended because leadership was lost (exit 1). */
  lost(): boolean;
  close(): Promise<void>;
}

export async function serveCluster(host: ServicesHost, o: ServeClusterOptions): Promise<ServedCluster> {
  let lost = false;
  const services = new ClusterServices(host, {
    client: o.client,
    clock: o.clock,
    namespace: o.run.namespace,
    files: o.files,
    leaderElection: o.run.leaderElection,
    logger: o.logger,
    onLostLeadership: () => {
      o.logger.error('leadership lost; stopping so a restart begins from cluster state', {});
      lost = true;
      o.stop();
    },
  });
  const source = new CheckedSource(o.status, services.readiness());
  const port = o.run.port;
  const server = await listenOn('--port', '127.0.0.1', port, () =>
    startStatusServer({ port, source, metrics: o.metrics, logger: o.logger }),
  );
  const probes = await startProbes(o.run.probePort, source, server);
  await services.start();
  await o.client.start(VIEW_KINDS);
  services.markInformersSynced();
  return {
    services,
    server,
    lost: () => lost,
    close: async () => {
      await services.stop(); // releases the lease: another replica takes over at once
      o.client.close();
      await server.close();
      await probes?.close();
    },
  };
}
