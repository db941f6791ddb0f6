// SPDX-License-Identifier: Apache-2.0
// `kpol run --kubeconfig FILE | --in-cluster` on a cluster that runs Karpenter (govern mode):
// Karpenter keeps provisioning, launching, draining and terminating with its own cloud
// provider; kpol evaluates its policies every second and writes Karpenter's own controls
// (src/control/govern/governor.ts). Policies come from ConfigMaps (hot-reloaded, last good kept), only
// the leader writes, and everything kpol decided is on the status page, /metrics and in events.
import { Evaluator } from '../../../core/eval/evaluate-cluster.js';
import { isApiError } from '../../../core/cluster/client.js';
import { Governor } from '../../../control/govern/governor.js';
import { GovernStatus } from '../../../control/govern/govern-status.js';
import { KubeClusterClient } from '../../kube/kube-cluster.js';
import { createLogger } from '../../../core/observe/logger.js';
import { formatError } from '../../../core/policy/configmap-status.js';
import { loadPolicies } from '../../../core/policy/load.js';
import type { PolicySpec } from '../../../../rules/model.js';
import { unevaluableFile } from '../../../core/policy/trial-eval.js';
import { VIEW_KINDS } from '../../../control/reconciler/cluster-view.js';
import { ClusterServices } from '../../../control/runtime/cluster-services.js';
import { listenOn, startProbes } from '../shared/listen.js';
import { CheckedSource } from '../../../control/runtime/readiness.js';
import { startStatusServer } from '../../server/status-server.js';
import { readPolicySources, reportDiagnostics } from '../shared/inputs.js';
import { CliError, EXIT_FINDINGS, EXIT_OK, type Output } from '../shared/io.js';
import { kubeConfigOf, whereOf } from '../shared/kube-target.js';
import { ScaledClock } from '../shared/scaled-clock.js';
import type { ClusterRunOptions } from './run-cluster.js';

export interface GovernRunOptions extends ClusterRunOptions {
  dryRun: boolean;
  failClosedAfterMs: number;
}

const TICK_MS = 1000;

export async function runGoverned(o: GovernRunOptions, io: Output): Promise<number> {
  const kc = kubeConfigOf(o);
  const sources = readPolicySources(o.policies);
  const loaded = loadPolicies(sources);
  if (reportDiagnostics(loaded, io)) return EXIT_FINDINGS;

  const clock = new ScaledClock(1);
  const logger = createLogger({ clock, sink: (line) => io.out(line) });
  const client = new KubeClusterClient(kc, { logger, cachedReads: true });
  const where = whereOf(o);
  try {
    await client.list('NodePool'); // an unreachable server or missing CRDs is a clear error, before anything starts
  } catch (e) {
    if (!isApiError(e)) throw e;
    throw new CliError(`${where}: ${e.message}${e.code === 404 ? ' (are the karpenter.sh/v1 CRDs installed?)' : ''}`);
  }
  const governor = new Governor({
    client,
    clock,
    logger,
    failClosedAfterMs: o.failClosedAfterMs,
    dryRun: o.dryRun,
    newEvaluator: () => new Evaluator(true, o.namespace), // pauses count in kpol's namespace only
  });
  governor.policies = loaded.policies;
  // Check proves a file well-formed, not that it evaluates (issue 13): one trial before acting.
  const evaluateAt = (p: readonly PolicySpec[], at: number) => governor.evaluateAt(p, at);
  const unevaluable = await unevaluableFile(loaded.policies, sources, evaluateAt, clock.now());
  if (unevaluable) {
    client.close();
    throw new CliError(formatError(unevaluable), EXIT_FINDINGS);
  }
  let stop: () => void = () => {};
  let lost = false;
  const services = new ClusterServices(governor, {
    client,
    clock,
    namespace: o.namespace,
    files: sources,
    leaderElection: o.leaderElection,
    logger,
    onLostLeadership: () => {
      logger.error('leadership lost; stopping so a restart begins from cluster state', {});
      lost = true;
      stop();
    },
  });
  const status = new GovernStatus(governor, clock);
  const checked = new CheckedSource(status, services.readiness());
  const server = await listenOn('--port', '127.0.0.1', o.port, () =>
    startStatusServer({ port: o.port, source: checked, metrics: governor.metrics, logger }),
  );
  const probes = await startProbes(o.probePort, checked, server);
  await services.start();
  await client.start(VIEW_KINDS);
  services.markInformersSynced();
  io.err(
    `kpol: governing Karpenter on ${client.rest.server} from ${where}${o.dryRun ? ' (dry run: nothing is written)' : ''}; status page ${server.url}/ (metrics ${server.url}/metrics)`,
  );
  logger.info('started', {
    mode: 'govern',
    url: server.url,
    server: client.rest.server,
    dryRun: o.dryRun,
    failClosedAfterSeconds: o.failClosedAfterMs / 1000,
    policies: loaded.policies.map((p) => p.name),
  });
  try {
    await new Promise<void>((resolve) => {
      let stopping = false;
      stop = () => {
        stopping = true;
        resolve();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      if (o.forSeconds !== undefined) setTimeout(stop, o.forSeconds * 1000).unref();
      const loop = async () => {
        while (!stopping) {
          try {
            if (services.shouldAct()) {
              status.record(await governor.tick());
              await services.tickSucceeded();
            }
          } catch (e) {
            // Nothing written this tick: Karpenter keeps the last budgets until their renewal
            // instant, then blocks (fail closed). The next tick starts again from cluster state.
            logger.error('tick failed', { error: (e as Error).message ?? String(e) });
            await services
              .tickFailed(e)
              .catch((err: unknown) => logger.error('could not report the failed tick', { error: String(err) }));
          }
          await new Promise((res) => setTimeout(res, TICK_MS));
        }
      };
      void loop();
    });
  } finally {
    await services.stop();
    client.close();
    await server.close();
    await probes?.close();
  }
  logger.info('stopped', {});
  return lost ? EXIT_FINDINGS : EXIT_OK;
}
