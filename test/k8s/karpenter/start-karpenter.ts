// SPDX-License-Identifier: Apache-2.0
import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from '../control-plane/free-ports.js';
import { kubectlOk } from '../control-plane/kubectl.js';
import { ProcessSet } from '../control-plane/processes.js';
import { KARPENTER_VERSION, KWOK_VERSION, binaryPath, crdsDir, stagesDir } from './paths.js';

/** Karpenter's KWOK provider and the KWOK simulator, running against one control plane. */
export interface RunningKarpenter {
  /** `http://127.0.0.1:<port>/metrics`, Karpenter's Prometheus endpoint. */
  metricsUrl: string;
  /** `http://127.0.0.1:<port>`, Karpenter's health probes (`/healthz`, `/readyz`). */
  healthUrl: string;
  karpenterVersion: string;
  kwokVersion: string;
  /** Log file of each process. */
  logs: { karpenter: string; kwok: string };
  pids: { karpenter: number; kwok: number };
  /** Kills both processes by PID and process group and removes their temporary dir (logs included). Idempotent. */
  stop(): Promise<void>;
}

export interface StartKarpenterOptions {
  /** Admin kubeconfig of a started control plane (../control-plane/start-control-plane.ts). */
  kubeconfigPath: string;
  /** Give up when Karpenter is not healthy after this long (default 90 s). */
  timeoutMs?: number;
  /** Karpenter's LOG_LEVEL: `debug`, `info` (default, or $KPOL_KARPENTER_LOG_LEVEL) or `error`. */
  logLevel?: string;
  log?: (line: string) => void;
}

// Every CRD in the cache dir, by the name `kubectl wait` needs; checked against the files.
const CRD_NAMES = [
  'nodepools.karpenter.sh',
  'nodeclaims.karpenter.sh',
  'nodeoverlays.karpenter.sh',
  'capacitybuffers.autoscaling.x-k8s.io',
  'kwoknodeclasses.karpenter.kwok.sh',
];

/**
 * Applies Karpenter's own CRDs (those its KWOK provider ships: NodePool, NodeClaim, NodeOverlay,
 * CapacityBuffer, KWOKNodeClass) with the built kubectl and waits until each is Established.
 * Idempotent. These are Karpenter's CRDs, not kpol's deploy/crds: the Karpenter under test
 * must see exactly the schema and defaults it was built with.
 */
export async function installKarpenterCrds(kubeconfigPath: string): Promise<void> {
  const files = readdirSync(crdsDir()).filter((f) => f.endsWith('.yaml'));
  if (files.length !== CRD_NAMES.length) {
    throw new Error(
      `expected ${CRD_NAMES.length} CRD files in ${crdsDir()}, found ${files.join(', ') || 'none'}; rerun build.sh`,
    );
  }
  // Server-side: nodepools' CRD is large, and a client-side apply stores all of it again in an annotation.
  await kubectlOk(kubeconfigPath, ['apply', '--server-side', '--force-conflicts', '-f', crdsDir()]);
  await kubectlOk(kubeconfigPath, [
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    ...CRD_NAMES.map((n) => `crd/${n}`),
  ]);
}

// The NodeClass every test NodePool refers to; the KWOK provider needs nothing in it.
const NODE_CLASS = `apiVersion: karpenter.kwok.sh/v1alpha1
kind: KWOKNodeClass
metadata: { name: default }
`;

const POLL_MS = 200;

/**
 * Installs Karpenter's CRDs and the `default` KWOKNodeClass, then starts `karpenter-kwok` and
 * `kwok` against the control plane behind `kubeconfigPath`, each in its own process group with
 * its log in a fresh temporary dir. Resolves once Karpenter answers /readyz and serves
 * /metrics, and KWOK is still running after its first second. On failure both are stopped, the
 * logs are kept and the error names the process and its log.
 */
export async function startKarpenter(options: StartKarpenterOptions): Promise<RunningKarpenter> {
  const log = options.log ?? (() => {});
  const began = Date.now();
  const deadline = began + (options.timeoutMs ?? 90_000);
  const step = (what: string) => log(`karpenter: ${what} (${Date.now() - began} ms)`);
  await installKarpenterCrds(options.kubeconfigPath);
  await kubectlOk(options.kubeconfigPath, ['apply', '-f', '-'], NODE_CLASS);
  step('CRDs established, KWOKNodeClass default applied');

  const stateDir = mkdtempSync(join(tmpdir(), 'kpol-karpenter-'));
  const logDir = join(stateDir, 'logs');
  mkdirSync(logDir);
  const procs = new ProcessSet(stateDir, logDir);
  try {
    const [metricsPort, healthPort, kwokPort] = await freePorts(3);
    const karpenter = procs.start('karpenter', binaryPath('karpenter-kwok'), [], {
      // Out of cluster it has no --kubeconfig flag; client-go reads KUBECONFIG.
      KUBECONFIG: options.kubeconfigPath,
      // One replica: a Lease would only delay the first reconcile.
      DISABLE_LEADER_ELECTION: 'true',
      METRICS_PORT: String(metricsPort),
      HEALTH_PROBE_PORT: String(healthPort),
      SYSTEM_NAMESPACE: 'kube-system',
      LOG_LEVEL: options.logLevel ?? process.env.KPOL_KARPENTER_LOG_LEVEL ?? 'info',
      // Provisioning waits for a quiet second (default 1 s, up to 10 s) before it launches
      // NodeClaims for pending pods; tests create their pods at once, so end the batch sooner.
      // The nomination window is max(2 × BATCH_MAX_DURATION, 10 s), so it stays at 10 s.
      BATCH_IDLE_DURATION: '300ms',
      BATCH_MAX_DURATION: '3s',
    });
    step(`karpenter-kwok started (pid ${karpenter.pid})`);

    const stages = readdirSync(stagesDir())
      .filter((f) => f.endsWith('.yaml'))
      .sort()
      .map((f) => `--config=${join(stagesDir(), f)}`);
    const kwok = procs.start('kwok', binaryPath('kwok'), [
      `--kubeconfig=${options.kubeconfigPath}`,
      // Only the Nodes the KWOK provider creates (annotated kwok.x-k8s.io/node=fake); a test's
      // hand-made Node stays the test's to drive.
      '--manage-all-nodes=false',
      '--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake',
      ...stages,
      // Pod IPs: outside the control plane's service range (10.0.0.0/24).
      '--cidr=10.244.0.0/16',
      '--node-ip=10.243.0.1',
      `--server-address=127.0.0.1:${kwokPort}`,
    ]);
    step(`kwok started (pid ${kwok.pid})`);

    const healthUrl = `http://127.0.0.1:${healthPort}`;
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    await procs.waitFor(
      'karpenter /readyz',
      deadline,
      async () => (await httpGetText(`${healthUrl}/readyz`)).status === 200,
      { logOf: 'karpenter', pollMs: POLL_MS },
    );
    await procs.waitFor(
      'karpenter /metrics',
      deadline,
      async () => {
        const res = await httpGetText(metricsUrl);
        return res.status === 200 && res.body.includes('karpenter_');
      },
      { logOf: 'karpenter', pollMs: POLL_MS },
    );
    step('karpenter ready');
    // KWOK has no readiness endpoint worth trusting; a bad flag or kubeconfig makes it exit at once.
    const kwokStarted = Date.now();
    await procs.waitFor('kwok to stay up for a second', deadline, async () => Date.now() - kwokStarted > 1000, {
      logOf: 'karpenter',
      pollMs: POLL_MS,
    });
    step('kwok running');

    return {
      metricsUrl,
      healthUrl,
      karpenterVersion: KARPENTER_VERSION,
      kwokVersion: KWOK_VERSION,
      logs: { karpenter: karpenter.logPath, kwok: kwok.logPath },
      pids: { karpenter: karpenter.pid, kwok: kwok.pid },
      stop: () => procs.stopAll(),
    };
  } catch (err) {
    await procs.stopAll({ keepState: true });
    const logs = procs.started.map((p) => `  ${p.name}: ${p.logPath}`).join('\n');
    throw new Error(`Karpenter/KWOK failed to start: ${(err as Error).message}\nlogs (kept):\n${logs}`, { cause: err });
  }
}

/** GET over plain HTTP (Karpenter's probes and metrics are not TLS). */
export function httpGetText(url: string, timeoutMs = 5000): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
  });
}
