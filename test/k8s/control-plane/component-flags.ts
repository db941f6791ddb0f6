// SPDX-License-Identifier: Apache-2.0
import { join } from 'node:path';
import type { Pki } from './pki.js';

/**
 * The kube-controller-manager controllers the tests run, and why each is on. Everything else
 * is off: fewer informers make start-up faster, and a controller that nothing in kpol's world
 * needs only adds noise.
 */
export const CONTROLLERS = [
  // Pods are admitted only once their namespace has its `default` ServiceAccount (the
  // ServiceAccount admission plugin stays on); the token controller signs the tokens the
  // controllers themselves use (--use-service-account-credentials).
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  // Workloads: Deployments make ReplicaSets, ReplicaSets make pods.
  'deployment-controller',
  'replicaset-controller',
  // PDB status (disruptionsAllowed, currentHealthy), which the Eviction API enforces.
  'disruption-controller',
  // Owner references: deleting a Deployment (or a NodeClaim owning a Node) removes dependents.
  'garbage-collector-controller',
  // Deleting a namespace empties and removes it, so tests can clean up after themselves.
  'namespace-controller',
  // Fills the aggregated admin/edit/view ClusterRoles, for least-privilege RBAC tests.
  'clusterrole-aggregation-controller',
  // Deliberately off: node-lifecycle-controller and taint-eviction-controller (no kubelet
  // renews node Leases, so they would taint every node unreachable and evict its pods; the
  // simulator plays the node agent), pod-garbage-collector-controller (the node agent finishes
  // pod deletions, as a kubelet would), node-ipam-controller (no pod networking).
] as const;

// Only the first address is used: the `kubernetes` Service. Matches the serving cert's SANs.
const SERVICE_CIDR = '10.0.0.0/24';

export function etcdArgs(dataDir: string, clientPort: number, peerPort: number): string[] {
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  return [
    '--name=kpol-test',
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=kpol-test=${peer}`,
    // The data is thrown away after the run: durability buys nothing and fsync costs seconds.
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
}

export function apiserverArgs(opts: { pki: Pki; stateDir: string; port: number; etcdPort: number }): string[] {
  const { pki } = opts;
  return [
    `--etcd-servers=http://127.0.0.1:${opts.etcdPort}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${opts.port}`,
    `--cert-dir=${join(opts.stateDir, 'apiserver-certs')}`,
    `--tls-cert-file=${pki.servingCert}`,
    `--tls-private-key-file=${pki.servingKey}`,
    `--client-ca-file=${pki.caCert}`,
    // RBAC only (no Node authorizer: there are no kubelets), so least privilege can be tested.
    '--authorization-mode=RBAC',
    `--service-account-issuer=https://kubernetes.default.svc.cluster.local`,
    `--service-account-key-file=${pki.serviceAccountPub}`,
    `--service-account-signing-key-file=${pki.serviceAccountKey}`,
    `--service-cluster-ip-range=${SERVICE_CIDR}`,
    // This plugin taints every new Node `node.kubernetes.io/not-ready:NoSchedule`; only the
    // node-lifecycle controller (off, see CONTROLLERS) lifts it. With it on, no Node the
    // simulator registers could ever take a pod.
    '--disable-admission-plugins=TaintNodesByCondition',
    // The `kubernetes` Service's Endpoints may not point at loopback, the only address here;
    // nothing in the tests dials the Service, so leave it without endpoints instead of erroring.
    '--endpoint-reconciler-type=none',
    '--profiling=false',
  ];
}

export function controllerManagerArgs(opts: { pki: Pki; kubeconfig: string }): string[] {
  return [
    `--kubeconfig=${opts.kubeconfig}`,
    `--controllers=${CONTROLLERS.join(',')}`,
    `--service-account-private-key-file=${opts.pki.serviceAccountKey}`,
    `--root-ca-file=${opts.pki.caCert}`,
    // Each controller acts as its own ServiceAccount with the bootstrap roles, as in kubeadm.
    '--use-service-account-credentials=true',
    // No HTTPS endpoint: nothing scrapes it, and fixed default ports would clash between runs.
    '--secure-port=0',
    '--profiling=false',
  ];
}

export function schedulerArgs(opts: { kubeconfig: string }): string[] {
  return [`--kubeconfig=${opts.kubeconfig}`, '--secure-port=0', '--profiling=false'];
}
