// SPDX-License-Identifier: Apache-2.0
import { CliError } from '../shared/io.js';
import { durationFlagMs } from '../shared/duration-flag.js';
import { CLUSTER_RUN_FLAGS, CLUSTER_RUN_USAGE, clusterRunFlags } from '../shared/cluster-run-flags.js';
import { parse, SNAPSHOT_OPTIONS, type Command } from './command.js';
import { RUN_MODE_FLAGS, RUN_MODE_USAGE, runModeFlags } from '../shared/run-mode.js';
import { DEMO_POLICY_CONFIGMAP, numbers } from '../shared/embedded-options.js';

const usage = `usage: kpol run [--cluster FILE --policy FILE…] [--speed 60] [--port 8080] [--for SECONDS]
       kpol run --kubeconfig FILE [--context NAME] [--mode govern|standalone|auto] [--dry-run]
                [--fail-closed-after 2m] [--policy FILE…] [--port 8080] [--for SECONDS]
       kpol run --in-cluster [--mode govern|standalone|auto] [--policy FILE…] [--port 8080]

Runs the controller. Without --kubeconfig it runs against the embedded simulated cluster,
seeded from the shipped demo (rules/examples/demo/) unless --cluster is given, on a clock
running --speed times real time; without --cluster or --policy the demo policy is stored in
ConfigMap ${DEMO_POLICY_CONFIGMAP.namespace}/${DEMO_POLICY_CONFIGMAP.name}, as with kpol serve. With --kubeconfig
(or --in-cluster, inside a pod) it acts on that cluster on the wall clock: next to the
cluster's Karpenter it governs (--mode govern); standalone, the simulated cloud is its cloud
provider and node agent, for the NodeClaims it launches only. Serves a status page, /metrics
and /healthz on 127.0.0.1 and logs each decision as one JSON line. --for stops after that many
real seconds. --launch-latency (default 30s) and --termination-delay (default 20s) set how
long the simulated cloud takes to start and to stop a machine. On the embedded cluster the
browser editor is served at /editor/ (built at the first start) with an access token printed
at start; policies it saves as ConfigMaps are reloaded by the controller (see kpol serve).

${RUN_MODE_USAGE}

${CLUSTER_RUN_USAGE}`;

export const runCommand: Command = {
  usage,
  async run(argv, io) {
    const { values } = parse(
      argv,
      {
        ...SNAPSHOT_OPTIONS,
        speed: { type: 'string', default: '60' },
        port: { type: 'string', default: '8080' },
        for: { type: 'string' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        'in-cluster': { type: 'boolean' },
        'launch-latency': { type: 'string' },
        'termination-delay': { type: 'string' },
        ...CLUSTER_RUN_FLAGS,
        ...RUN_MODE_FLAGS,
      },
      usage,
    );
    const n = numbers(values);
    const cloud = cloudTimings(values['launch-latency'], values['termination-delay']);
    if (values.kubeconfig || values['in-cluster']) {
      if (values.cluster)
        throw new CliError(
          '--cluster seeds the embedded simulated cluster; it cannot be combined with --kubeconfig or --in-cluster',
        );
      const mode = runModeFlags(values);
      const { runClusterMode } = await import('./run-cluster.js');
      return runClusterMode(
        {
          kubeconfig: values.kubeconfig,
          context: values.context,
          inCluster: values['in-cluster'],
          policies: values.policy ?? [],
          port: n.port,
          ...(n.forSeconds !== undefined && { forSeconds: n.forSeconds }),
          cloud,
          ...clusterRunFlags(values, process.env),
        },
        mode,
        io,
      );
    }
    if (values.context) throw new CliError('--context selects a context of --kubeconfig; give --kubeconfig too');
    for (const flag of ['mode', 'dry-run', 'fail-closed-after'] as const) {
      if (values[flag] !== undefined)
        throw new CliError(`--${flag} applies to a real cluster; give --kubeconfig or --in-cluster too`);
    }
    const { embeddedInputs, runEmbedded } = await import('./serve.js');
    return runEmbedded({ ...embeddedInputs(values), protectStatus: false, cloud, ...n }, io);
  },
};

/** The simulated cloud's machine start and stop times; seconds-scale values make a real-cluster test short. */
function cloudTimings(
  launch: string | undefined,
  termination: string | undefined,
): { launchLatencyMs?: number; terminationDelayMs?: number } {
  const ms = (text: string, flag: string) => durationFlagMs(text, flag, '2s or 500ms');
  return {
    ...(launch !== undefined && { launchLatencyMs: ms(launch, 'launch-latency') }),
    ...(termination !== undefined && { terminationDelayMs: ms(termination, 'termination-delay') }),
  };
}
