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
import { loadPolicies } from '../../../core/policy/load.js';
import type { PolicySpec } from '../../../../rules/model.js';
import { readPolicySources, reportDiagnostics } from '../shared/inputs.js';
import { CliError, EXIT_FINDINGS, EXIT_OK, type Output } from '../shared/io.js';
import { kubeConfigOf, whereOf } from '../shared/kube-target.js';
import { ScaledClock } from '../shared/scaled-clock.js';
import type { ClusterRunOptions } from './run-cluster.js';
import { refuseUnevaluable, serveCluster } from './cluster-serving.js';

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
  const evaluateAt = (p: readonly PolicySpec[], at: number) => governor.evaluateAt(p, at);
  await refuseUnevaluable(client, loaded.policies, sources, evaluateAt, clock.now());
  let stop: () => void = () => {};
  const status = new GovernStatus(governor, clock);
  const served = await serveCluster(governor, {
    client,
    clock,
    logger,
    run: o,
    files: sources,
    metrics: governor.metrics,
    status,
    stop: () => stop(),
  });
  const { services, server } = served;
  io.err(
    `kpol: governing Karpenter on ${client.rest.server} ` +
      `from ${where}${o.dryRun ? ' (dry run: nothing is written)' : ''}; status ` +
      `page ${server.url}/ (metrics ${server.url}/metrics)`,
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
    await served.close();
  }
  logger.info('stopped', {});
  return served.lost() ? EXIT_FINDINGS : EXIT_OK;
}
