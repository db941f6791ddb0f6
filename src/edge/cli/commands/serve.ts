// SPDX-License-Identifier: Apache-2.0
// `kpol serve`: the browser editor on 127.0.0.1 in front of the controller on the embedded
// simulated cluster. Policies live in ConfigMaps (the demo's is seeded into one), so what the
// editor saves is what the controller reloads — through the same loader as on a real cluster
// (ConfigMapPolicies: per-ConfigMap last good version, `kpol.dev/status`, PolicyInvalid
// events), so the editor sees the status a real cluster gives. `kpol run` shares the wiring.
import { randomBytes } from 'node:crypto';
import type { ConfigMap, KubeObject } from '../../../core/cluster/types.js';
import { LABEL_POLICY_CONFIGMAP } from '../../../core/cluster/types.js';
import { createLogger } from '../../../core/observe/logger.js';
import { ConfigMapPolicies } from '../../../core/policy/configmap-policies.js';
import { loadPolicies } from '../../../core/policy/load.js';
import { Runtime } from '../../../control/runtime/runtime.js';
import { RuntimeStatus } from '../../../control/runtime/status.js';
import { ensureEditorBuilt } from '../../server/editor-build.js';
import { editorRoutes } from '../../server/editor-routes.js';
import { formatError } from '../../../core/policy/configmap-status.js';
import { unevaluableFile, type EvaluateAt } from '../../../core/policy/trial-eval.js';
import { startStatusServer, type StatusServer } from '../../server/status-server.js';
import { simulationObjects } from '../../simulate/cluster-objects.js';
import { DEFAULT_NAMESPACE } from '../shared/cluster-factory.js';
import { DEMO_CLUSTER, DEMO_POLICY, DEMO_POLICY_CONFIGMAP, numbers } from '../shared/embedded-options.js';
import { CliError, EXIT_FINDINGS, EXIT_OK, readText, type Output } from '../shared/io.js';
import { snapshotError, reportSnapshotWarnings } from '../shared/cluster-input.js';
import { readPolicySources, reportDiagnostics } from '../shared/inputs.js';
import { listenOn } from '../shared/listen.js';
import { ScaledClock } from '../shared/scaled-clock.js';
import { parse, SNAPSHOT_OPTIONS, type Command } from './command.js';
import { runLoop } from './run-loop.js';

export interface EmbeddedOptions {
  clusterFile: string;
  policyFiles: string[];
  /** The simulated cloud's machine start/stop times (kpol run --launch-latency/--termination-delay). */
  cloud?: { launchLatencyMs?: number; terminationDelayMs?: number };
  /** Extra objects to seed (the demo policy's ConfigMap). */
  extraObjects?: KubeObject[];
  speed: number;
  port: number;
  startMs?: number;
  /** Whether the status page and metrics need the token too (serve) or stay open (run). */
  protectStatus: boolean;
  forSeconds?: number;
}

export const newToken = () => randomBytes(24).toString('base64url');

/** Seeds, runs the controller loop and serves status and editor until SIGINT/SIGTERM or --for. */
export async function runEmbedded(o: EmbeddedOptions, io: Output): Promise<number> {
  const { objects: fileObjects, errors, warnings } = simulationObjects(readText(o.clusterFile), o.clusterFile);
  if (errors.length) throw snapshotError(errors, o.clusterFile);
  reportSnapshotWarnings(warnings, io);
  const objects = [...fileObjects, ...(o.extraObjects ?? [])];
  const files = readPolicySources(o.policyFiles);
  // --policy files are the command's input: errors stop it here. A seeded ConfigMap is cluster
  // state, refused (annotated, evented) by the loader as on a real cluster, so the editor can fix it.
  const loaded = loadPolicies(files, o.startMs ?? Date.now());
  if (reportDiagnostics(loaded, io)) return EXIT_FINDINGS;
  // Built now if missing or stale (a few seconds, with progress), so the URL printed below
  // works; before the simulated clock starts, which would otherwise run on meanwhile.
  await ensureEditorBuilt((line) => io.err(`kpol: ${line}`));
  const clock = new ScaledClock(o.speed, o.startMs);

  const logger = createLogger({ clock, sink: (line) => io.out(line) });
  const rt = new Runtime({ clock, objects, policies: loaded.policies, logger, ...(o.cloud && { cloud: o.cloud }) });
  const status = new RuntimeStatus(rt, o.speed);
  // What the controller evaluates is what a save or a ConfigMap change is tried against.
  const evaluateAt: EvaluateAt = (p, at) => rt.evaluateAt(p, at);
  // A --policy file that checks but cannot be evaluated stops the command, as on a real cluster.
  const unevaluable = await unevaluableFile(loaded.policies, files, evaluateAt, clock.now());
  if (unevaluable) throw new CliError(formatError(unevaluable), EXIT_FINDINGS);
  const policies = new ConfigMapPolicies({
    client: rt.cluster,
    clock,
    namespace: DEFAULT_NAMESPACE,
    files,
    recorder: rt.events,
    logger,
    evaluateAt,
    onChange: (p) => {
      rt.policies = p;
    },
  });
  await policies.start();
  const token = newToken();
  let server: StatusServer;
  try {
    server = await listenOn('--port', '127.0.0.1', o.port, () =>
      startStatusServer({
        port: o.port,
        source: status,
        metrics: rt.metrics,
        logger,
        ...(o.protectStatus && { token }),
        routes: editorRoutes({ client: rt.cluster, token, sources: policies, now: () => clock.now(), evaluateAt }),
      }),
    );
  } catch (e) {
    policies.stop();
    throw e;
  }
  announce(server, token, o, io);
  logger.info('started', {
    url: server.url,
    cluster: o.clusterFile,
    policies: rt.policies.map((p) => p.name),
    speed: o.speed,
  });
  await runLoop(rt, status, logger, o.forSeconds);
  policies.stop();
  await server.close();
  logger.info('stopped', {});
  return EXIT_OK;
}

function announce(server: StatusServer, token: string, o: EmbeddedOptions, io: Output): void {
  io.err(
    `kpol: embedded simulated cluster (${o.clusterFile}), clock ×${o.speed}; status ` +
      `page ${server.url}/ (metrics ${server.url}/metrics)`,
  );
  // The token travels in the fragment, which browsers never send to the server or in Referer.
  io.err(`kpol: editor ${server.url}/editor/#token=${token}`);
  io.err(`kpol: access token ${token}`);
}

const usage = `usage: kpol serve [--cluster FILE] [--policy FILE…] [--port 8080] [--speed 1]
                  [--start RFC3339] [--for SECONDS]

Serves the browser editor on 127.0.0.1 (the URL and an access token are printed at start) in
front of the controller on the embedded simulated cluster. Without --cluster it runs the demo
(rules/examples/demo/) with its policy stored in ConfigMap
${DEMO_POLICY_CONFIGMAP.namespace}/${DEMO_POLICY_CONFIGMAP.name}, so the editor can load and save it. Policies are
the ConfigMaps labelled kpol.dev/policy in namespace ${DEFAULT_NAMESPACE}, reloaded on every change
as on a real cluster: one with errors is refused (its last good version stays, and its
kpol.dev/status annotation and a PolicyInvalid event say why). --policy files are applied too
but are read-only. The status page, /metrics and the API need the token.`;

export const serveCommand: Command = {
  usage,
  async run(argv, io) {
    const { values } = parse(
      argv,
      {
        ...SNAPSHOT_OPTIONS,
        speed: { type: 'string', default: '1' },
        port: { type: 'string', default: '8080' },
        start: { type: 'string' },
        for: { type: 'string' },
      },
      usage,
    );
    return runEmbedded({ ...embeddedInputs(values), protectStatus: true, ...numbers(values) }, io);
  },
};

/**
 * What `kpol run` and `kpol serve` seed the embedded cluster with: the demo cluster unless
 * --cluster is given, and the demo policy — as ConfigMap kpol-system/business-hours, so that
 * the editor lists it and a save is what the controller reloads — unless --cluster or --policy
 * is given. --policy files are applied read-only.
 */
export function embeddedInputs(values: {
  cluster?: string;
  policy?: string[];
}): Pick<EmbeddedOptions, 'clusterFile' | 'policyFiles' | 'extraObjects'> {
  const demo = values.cluster === undefined && values.policy === undefined;
  const extraObjects: KubeObject[] = demo ? [demoPolicyConfigMap()] : [];
  return { clusterFile: values.cluster ?? DEMO_CLUSTER, policyFiles: values.policy ?? [], extraObjects };
}

function demoPolicyConfigMap(): ConfigMap {
  const { namespace, name, key } = DEMO_POLICY_CONFIGMAP;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { [LABEL_POLICY_CONFIGMAP]: 'true' } },
    data: { [key]: readText(DEMO_POLICY) },
  };
}
