// SPDX-License-Identifier: Apache-2.0
import { CliError } from '../io.js';
import { parse, type Command } from './command.js';
import { DEMO_CLUSTER, DEMO_POLICY, numbers, runEmbedded } from './serve.js';

const usage = `usage: kpol run [--cluster FILE --policy FILE…] [--speed 60] [--port 8080] [--for SECONDS]

Runs the controller. Without --kubeconfig it runs against the embedded simulated cluster,
seeded from the shipped demo (rules/examples/demo/) unless --cluster is given, on a clock
running --speed times real time. Serves a status page, /metrics and /healthz on 127.0.0.1 and
logs each decision as one JSON line. --for stops after that many real seconds. The browser
editor is served at /editor/ with an access token printed at start; policies it saves as
ConfigMaps are reloaded by the controller (see kpol serve).`;

export const runCommand: Command = {
  summary: 'run the controller (embedded simulated cluster by default)',
  usage,
  async run(argv, io) {
    const { values } = parse(argv, {
      cluster: { type: 'string' }, policy: { type: 'string', multiple: true }, speed: { type: 'string', default: '60' },
      port: { type: 'string', default: '8080' }, for: { type: 'string' }, kubeconfig: { type: 'string' }, context: { type: 'string' },
    }, usage);
    if (values.kubeconfig) throw new CliError('--kubeconfig: running against a real cluster is not available yet (issue 4); omit it for the embedded simulated cluster');
    const n = numbers(values);
    const policyFiles = values.policy ?? (values.cluster ? [] : [DEMO_POLICY]);
    return runEmbedded({ clusterFile: values.cluster ?? DEMO_CLUSTER, policyFiles, protectStatus: false, ...n }, io);
  },
};
