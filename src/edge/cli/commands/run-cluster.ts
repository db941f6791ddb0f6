// SPDX-License-Identifier: Apache-2.0
// `kpol run --kubeconfig FILE [--context NAME]` / `--in-cluster`: the controller acting on a
// real cluster on the wall clock. runClusterMode() picks govern or standalone (run-mode.ts);
// runOnCluster() is standalone: kube-controller-manager runs ReplicaSets and PDB status; the
// simulated cloud stays the cloud provider and node agent (it launches machines for NodeClaims,
// registers their Nodes and plays kubelet for the pods bound to them), as KWOK does. It acts only
// on the machines the simulated cloud launched (src/world/cloud/ownership.ts): it refuses to start
// beside another provider's NodeClaims and ignores any that appear later.
import { Evaluator } from '../../../core/eval/evaluate-cluster.js';
import { isApiError } from '../../../core/cluster/client.js';
import type { NodeClaim } from '../../../core/cluster/types.js';
import { KubeClusterClient } from '../../kube/kube-cluster.js';
import { RestClient } from '../../kube/rest.js';
import { describeNodeClaims, SIMULATED_CLOUD_ONLY } from '../../../world/cloud/ownership.js';
import { detectMode, requireNoGovernFlags, type RunModeFlags } from '../shared/run-mode.js';
import { runGoverned } from './run-govern.js';
import { createLogger } from '../../../core/observe/logger.js';
import { loadPolicies } from '../../../core/policy/load.js';
import { Runtime } from '../../../control/runtime/runtime.js';
import { RuntimeStatus } from '../../../control/runtime/status.js';
import { readPolicySources, reportDiagnostics } from '../shared/inputs.js';
import { CliError, EXIT_FINDINGS, EXIT_OK, type Output } from '../shared/io.js';
import { ScaledClock } from '../shared/scaled-clock.js';
import type { ClusterRunFlags } from '../shared/cluster-run-flags.js';
import { kubeConfigOf, whereOf } from '../shared/kube-target.js';
import { runLoop, type LoopHooks } from './run-loop.js';
import { refuseUnevaluable, serveCluster } from './cluster-serving.js';

export interface ClusterRunOptions {
  kubeconfig?: string;
  context?: string;
  inCluster?: boolean;
  policies: string[];
  port: number;
  forSeconds?: number;
  /** The simulated cloud's launch latency and termination delay. */
  cloud?: { launchLatencyMs?: number; terminationDelayMs?: number };
  /** Namespace, leader election and probe port (cluster-run-flags.ts). */
  namespace: string;
  leaderElection: ClusterRunFlags['leaderElection'];
  probePort: number | undefined;
}

/** --mode: govern goes to run-govern.ts, standalone to runOnCluster; auto asks the cluster first. */
export async function runClusterMode(o: ClusterRunOptions, m: RunModeFlags, io: Output): Promise<number> {
  let mode = m.mode;
  if (mode === 'auto') {
    const rest = new RestClient(kubeConfigOf(o));
    const decided = await detectMode((path) => rest.request({ verb: 'GET', path }), whereOf(o));
    io.err(`kpol: --mode auto chose ${decided.mode}: ${decided.why}`);
    if (decided.mode === 'standalone')
      requireNoGovernFlags(m, `--mode auto chose standalone (${decided.why}); give --mode govern to govern`);
    mode = decided.mode;
  }
  if (mode === 'govern') {
    // The simulated cloud's timings mean nothing next to a real cloud provider: refused, not ignored.
    if (o.cloud && Object.keys(o.cloud).length)
      throw new CliError(
        '--launch-latency and --termination-delay set the simulated cloud of standalone mode; govern mode has none',
      );
    return runGoverned({ ...o, dryRun: m.dryRun, failClosedAfterMs: m.failClosedAfterMs }, io);
  }
  return runOnCluster(o, io);
}

export async function runOnCluster(o: ClusterRunOptions, io: Output): Promise<number> {
  const kc = kubeConfigOf(o);
  const sources = readPolicySources(o.policies);
  const loaded = loadPolicies(sources);
  if (reportDiagnostics(loaded, io)) return EXIT_FINDINGS;

  const clock = new ScaledClock(1); // speed 1: the wall clock, as the API server's timestamps are
  const logger = createLogger({ clock, sink: (line) => io.out(line) });
  // The controller reads from its informers' caches (never behind its own writes).
  const client = new KubeClusterClient(kc, { logger, cachedReads: true });
  const where = whereOf(o);
  let nodeClaims: NodeClaim[];
  try {
    // One read before anything starts: an unreachable server or missing CRDs is a clear error.
    nodeClaims = await client.list<NodeClaim>('NodeClaim');
  } catch (e) {
    if (!isApiError(e)) throw e;
    const hint = e.code === 404 ? ' (are the karpenter.sh/v1 CRDs installed?)' : '';
    throw new CliError(`${where}: ${e.message}${hint}`);
  }
  // Another cloud provider's machines: standalone would fight it over them. Later ones are
  // ignored (the Runtime's ownership); at start, refusing says what is wrong at once.
  const foreign = nodeClaims.filter((nc) => !SIMULATED_CLOUD_ONLY.nodeClaim(nc));
  if (foreign.length) {
    client.close();
    throw new CliError(
      `${where}: standalone mode acts only on machines its simulated cloud launches, ` +
        `and ${foreign.length} NodeClaim${foreign.length > 1 ? 's were' : ' was'} launched ` +
        `or created by another cloud provider: ${describeNodeClaims(foreign)}. If the cluster runs ` +
        `Karpenter, use --mode govern.`,
      EXIT_FINDINGS,
    );
  }
  const rt = new Runtime({
    clock,
    objects: nodeClaims,
    cluster: client,
    bindPods: false,
    policies: loaded.policies,
    logger,
    ownership: SIMULATED_CLOUD_ONLY,
    newEvaluator: () => new Evaluator(true, o.namespace), // pauses count in kpol's namespace only
    // The simulated cloud starts afresh in every process: ids from the wall clock never repeat
    // one a previous process gave a machine (its Node may still be on its way out).
    cloud: { ...o.cloud, instanceIdStart: clock.now() * 1000 },
  });
  await refuseUnevaluable(client, loaded.policies, sources, (p, at) => rt.evaluateAt(p, at), clock.now());
  if (rt.notAdopted.length)
    logger.warn('NodeClaims the simulated cloud cannot take over', { nodeClaims: rt.notAdopted });
  const hooks: LoopHooks = {
    shouldAct: () => served.services.shouldAct(),
    afterTick: (r) => served.services.afterTick(r),
    tickSucceeded: () => served.services.tickSucceeded(),
    tickFailed: (e) => served.services.tickFailed(e),
  };
  const runtimeStatus = new RuntimeStatus(rt, 1);
  const served = await serveCluster(rt, {
    client,
    clock,
    logger,
    run: o,
    files: sources,
    metrics: rt.metrics,
    status: runtimeStatus,
    stop: () => hooks.stop?.(),
  });
  const { server } = served;
  io.err(
    `kpol: cluster ${client.rest.server} from ${where}; status page ${server.url}/ (metrics ${server.url}/metrics)`,
  );
  logger.info('started', { url: server.url, server: client.rest.server, policies: loaded.policies.map((p) => p.name) });
  try {
    await runLoop(rt, runtimeStatus, logger, o.forSeconds, hooks);
    // The simulated cloud lives in this process: say what it still runs and whether any machine
    // has no NodeClaim (a leak a restart would lose track of; none is expected).
    const claims = await client.list<NodeClaim>('NodeClaim').catch(() => undefined);
    const instances = (await rt.cloud.list()).map((i) => i.providerID);
    if (claims) logger.info('cloud at stop', { instances, orphans: rt.cloud.orphans(claims).map((i) => i.providerID) });
  } finally {
    await served.close();
  }
  logger.info('stopped', {});
  return served.lost() ? EXIT_FINDINGS : EXIT_OK;
}
