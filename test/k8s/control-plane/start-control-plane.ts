// SPDX-License-Identifier: Apache-2.0
import { mkdirSync, mkdtempSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from './api-client.js';
import { apiserverArgs, controllerManagerArgs, etcdArgs, schedulerArgs } from './component-flags.js';
import { freePorts } from './free-ports.js';
import { writeKubeconfig } from './kubeconfig.js';
import { K8S_VERSION, binaryPath } from './paths.js';
import { generatePki } from './pki.js';
import { ProcessSet } from './processes.js';

/** A running control plane. See README.md in this folder. */
export interface ControlPlane {
  /** Admin kubeconfig (system:masters client certificate, embedded), JSON. */
  kubeconfigPath: string;
  /** The apiserver's URL, `https://127.0.0.1:<port>`. */
  server: string;
  /** Kubernetes version of every component. */
  version: string;
  /** Log file of each process, by name (etcd, kube-apiserver, kube-controller-manager, kube-scheduler). */
  logs: Record<string, string>;
  /** PID (and process-group id) of each process, by the same names. */
  pids: Record<string, number>;
  /** Temporary directory holding certificates, etcd data and logs; removed by stop(). */
  stateDir: string;
  /** Kills every process by PID and process group and removes the state directory. Idempotent. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Give up when not ready after this long (default 90 s: a first start on a busy machine is slow). */
  timeoutMs?: number;
  /** Progress lines; default silent. */
  log?: (line: string) => void;
  /**
   * Runs once the apiserver is ready and before the controllers start, with the admin
   * kubeconfig: CRDs installed here are known to kube-controller-manager's garbage collector
   * from its start (it discovers kinds installed later only at its next resync, 30 s on).
   */
  beforeControllers?: (kubeconfigPath: string) => Promise<void>;
}

/**
 * Starts etcd, kube-apiserver, kube-controller-manager and kube-scheduler on free 127.0.0.1
 * ports with a fresh temporary state dir, and resolves once the apiserver is ready, the
 * controller-manager has created the `default` ServiceAccount and both components hold their
 * leader Leases. On failure everything started is stopped, the state dir (with logs) is kept,
 * and the error names the process and its log.
 */
export async function startControlPlane(options: StartOptions = {}): Promise<ControlPlane> {
  const log = options.log ?? (() => {});
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  const stateDir = mkdtempSync(join(tmpdir(), 'kpol-k8s-'));
  const logDir = join(stateDir, 'logs');
  mkdirSync(logDir);
  const procs = new ProcessSet(stateDir, logDir);
  const began = Date.now();
  const step = (what: string) => log(`control plane: ${what} (${Date.now() - began} ms)`);

  try {
    const pkiDir = join(stateDir, 'pki');
    mkdirSync(pkiDir);
    const [[etcdPort, etcdPeerPort, apiPort], pki] = await Promise.all([freePorts(3), generatePki(pkiDir)]);
    step('certificates generated');
    const server = `https://127.0.0.1:${apiPort}`;
    const kubeconfig = (user: 'admin' | 'kube-controller-manager' | 'kube-scheduler') =>
      writeKubeconfig(join(stateDir, `${user}.kubeconfig`), {
        server,
        caCert: pki.caCert,
        clientCert: pki.clients[user].cert,
        clientKey: pki.clients[user].key,
      });
    const kubeconfigPath = kubeconfig('admin');

    procs.start('etcd', binaryPath('etcd'), etcdArgs(join(stateDir, 'etcd'), etcdPort, etcdPeerPort));
    await procs.waitFor('etcd /health', deadline, () => etcdHealthy(etcdPort));
    step('etcd healthy');

    procs.start(
      'kube-apiserver',
      binaryPath('kube-apiserver'),
      apiserverArgs({ pki, stateDir, port: apiPort, etcdPort }),
    );
    const api = ApiClient.fromKubeconfig(kubeconfigPath);
    await procs.waitFor('kube-apiserver /readyz', deadline, async () => (await api.get('/readyz')).status === 200);
    step('kube-apiserver ready');
    if (options.beforeControllers) {
      await options.beforeControllers(kubeconfigPath);
      step('prepared before the controllers');
    }

    procs.start(
      'kube-controller-manager',
      binaryPath('kube-controller-manager'),
      controllerManagerArgs({ pki, kubeconfig: kubeconfig('kube-controller-manager') }),
    );
    procs.start(
      'kube-scheduler',
      binaryPath('kube-scheduler'),
      schedulerArgs({ kubeconfig: kubeconfig('kube-scheduler') }),
    );
    await Promise.all([
      procs.waitFor('kube-controller-manager leader Lease', deadline, () => leaseHeld(api, 'kube-controller-manager')),
      procs.waitFor('kube-scheduler leader Lease', deadline, () => leaseHeld(api, 'kube-scheduler')),
      procs.waitFor(
        'ServiceAccount default/default (serviceaccount controller)',
        deadline,
        async () => (await api.get('/api/v1/namespaces/default/serviceaccounts/default')).status === 200,
      ),
    ]);
    step('controller-manager and scheduler running');

    const logs = Object.fromEntries(procs.started.map((p) => [p.name, p.logPath]));
    const pids = Object.fromEntries(procs.started.map((p) => [p.name, p.pid]));
    return { kubeconfigPath, server, version: K8S_VERSION, logs, pids, stateDir, stop: () => procs.stopAll() };
  } catch (err) {
    await procs.stopAll({ keepState: true });
    const logs = procs.started.map((p) => `  ${p.name}: ${p.logPath}`).join('\n');
    throw new Error(`control plane failed to start: ${(err as Error).message}\nlogs (kept):\n${logs}`, { cause: err });
  }
}

function etcdHealthy(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/health', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy(new Error('etcd /health timed out')));
    req.on('error', reject);
    req.end();
  });
}

async function leaseHeld(api: ApiClient, name: string): Promise<boolean> {
  const res = await api.get(`/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${name}`);
  return res.status === 200 && Boolean(res.body?.spec?.holderIdentity);
}
