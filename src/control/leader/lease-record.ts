// SPDX-License-Identifier: Apache-2.0
// The coordination.k8s.io/v1 Lease as leader election reads and writes it. Times are
// MicroTime (RFC 3339 with microseconds), as client-go writes them.
import type { KubeObject } from '../../core/cluster/types.js';

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease extends KubeObject {
  kind: 'Lease';
  spec?: LeaseSpec;
}

/** `2026-11-22T10:00:00.123000Z`: the API server's MicroTime format. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function newLease(namespace: string, name: string, spec: LeaseSpec): Lease {
  return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec };
}

/** The fields whose change means someone wrote the lease (client-go compares the whole record). */
export function recordKey(spec: LeaseSpec | undefined): string {
  const s = spec ?? {};
  return JSON.stringify([
    s.holderIdentity ?? '',
    s.leaseDurationSeconds ?? 0,
    s.acquireTime ?? '',
    s.renewTime ?? '',
    s.leaseTransitions ?? 0,
  ]);
}
