// SPDX-License-Identifier: Apache-2.0
import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Paths of the PEM files one control plane uses; all live in its state directory. */
export interface Pki {
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  /** Key pair the apiserver signs service-account tokens with and the controller-manager reads. */
  serviceAccountKey: string;
  serviceAccountPub: string;
  /** Client certificates, by user: `admin` (system:masters), the controller-manager and the scheduler. */
  clients: Record<ClientName, { cert: string; key: string }>;
}

export type ClientName = 'admin' | 'kube-controller-manager' | 'kube-scheduler';

// The identities RBAC's bootstrap policy already binds: admin is a cluster superuser through its
// group; the two components get exactly the roles Kubernetes ships for them.
const SUBJECTS: Record<ClientName, string> = {
  admin: '/O=system:masters/CN=kpol-admin',
  'kube-controller-manager': '/CN=system:kube-controller-manager',
  'kube-scheduler': '/CN=system:kube-scheduler',
};

// 10.0.0.1 is the first address of the service range startControlPlane passes to the apiserver:
// the in-cluster `kubernetes` Service, which pods would use.
const OPENSSL_CONFIG = `[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign, digitalSignature
subjectKeyIdentifier = hash
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, IP:10.0.0.1, DNS:localhost, DNS:kubernetes, DNS:kubernetes.default, \
DNS:kubernetes.default.svc, DNS:kubernetes.default.svc.cluster.local
[client]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = clientAuth
`;

function writeKey(path: string): string {
  // P-256 keys: generated in microseconds, unlike RSA, and accepted by every component.
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  writeFileSync(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  return path;
}

async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args);
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`openssl ${args.join(' ')} failed: ${(e.stderr || e.message).trim()}`, { cause: err });
  }
}

/**
 * Generates a throw-away CA, the apiserver's serving certificate, client certificates and the service-account key pair
 * into `dir`.
 */
export async function generatePki(dir: string): Promise<Pki> {
  const config = join(dir, 'openssl.cnf');
  writeFileSync(config, OPENSSL_CONFIG);
  const serial = () => `0x${randomBytes(12).toString('hex')}`;
  const caKey = writeKey(join(dir, 'ca.key'));
  const caCert = join(dir, 'ca.crt');
  await openssl([
    'req',
    '-x509',
    '-new',
    '-config',
    config,
    '-extensions',
    'ca',
    '-key',
    caKey,
    '-subj',
    '/CN=kpol-test-ca',
    '-days',
    '7',
    '-set_serial',
    serial(),
    '-out',
    caCert,
  ]);

  const issue = async (name: string, subject: string, extensions: 'server' | 'client') => {
    const key = writeKey(join(dir, `${name}.key`));
    const cert = join(dir, `${name}.crt`);
    await openssl([
      'req',
      '-x509',
      '-new',
      '-config',
      config,
      '-extensions',
      extensions,
      '-key',
      key,
      '-subj',
      subject,
      '-CA',
      caCert,
      '-CAkey',
      caKey,
      '-days',
      '7',
      '-set_serial',
      serial(),
      '-out',
      cert,
    ]);
    return { cert, key };
  };
  const [serving, admin, controllerManager, scheduler] = await Promise.all([
    issue('apiserver', '/CN=kube-apiserver', 'server'),
    issue('admin', SUBJECTS.admin, 'client'),
    issue('kube-controller-manager', SUBJECTS['kube-controller-manager'], 'client'),
    issue('kube-scheduler', SUBJECTS['kube-scheduler'], 'client'),
  ]);

  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const serviceAccountKey = join(dir, 'sa.key');
  const serviceAccountPub = join(dir, 'sa.pub');
  writeFileSync(serviceAccountKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  writeFileSync(serviceAccountPub, publicKey.export({ type: 'spki', format: 'pem' }));

  return {
    caCert,
    caKey,
    servingCert: serving.cert,
    servingKey: serving.key,
    serviceAccountKey,
    serviceAccountPub,
    clients: { admin, 'kube-controller-manager': controllerManager, 'kube-scheduler': scheduler },
  };
}
