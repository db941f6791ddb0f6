// SPDX-License-Identifier: Apache-2.0
// Recorded events written to the cluster as core/v1 Events, so `kubectl describe` and
// `kubectl get events` show them. Only what the EventLog records (after its dedupe) is written,
// and a failed write is logged, never fatal: events are informational.
import type { ClusterClient } from '../cluster/client.js';
import type { KubeObject } from '../cluster/types.js';
import type { Clock } from '../clock.js';
import type { EventLog } from './event-log.js';
import type { Logger } from './logger.js';
import type { RecordedEvent } from './recorder.js';

export interface ClusterEventsOptions {
  client: ClusterClient;
  clock: Clock;
  /** `reportingInstance`: this replica's identity. */
  instance?: string;
  logger?: Logger;
}

const API_VERSIONS: Record<string, string> = {
  NodePool: 'karpenter.sh/v1',
  NodeClaim: 'karpenter.sh/v1',
  Node: 'v1',
  Pod: 'v1',
  ConfigMap: 'v1',
};

/** The Event object for `e`; cluster-scoped objects' events go to `default`, as kubectl looks for them. */
export function eventObject(e: RecordedEvent, name: string, instance: string | undefined): KubeObject {
  const at = new Date(e.at).toISOString();
  const namespace = e.object.namespace ?? 'default';
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace },
    involvedObject: {
      kind: e.object.kind,
      name: e.object.name,
      ...(e.object.namespace && { namespace: e.object.namespace }),
      ...(e.object.uid && { uid: e.object.uid }),
      ...(API_VERSIONS[e.object.kind] && { apiVersion: API_VERSIONS[e.object.kind] }),
    },
    reason: e.reason,
    message: e.message,
    type: e.type,
    source: { component: 'kpol' },
    reportingComponent: 'kpol',
    ...(instance && { reportingInstance: instance }),
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
  };
}

/** Writes every event `log` records from now on; returns the function that stops it. */
export function mirrorEventsToCluster(log: EventLog, o: ClusterEventsOptions): () => void {
  let seq = 0;
  return log.onEvent((e) => {
    // client-go names events `<object>.<unix nanos in hex>`; a counter keeps same-instant ones apart.
    const name = `${e.object.name}.${(o.clock.now() * 1000 + (seq++ % 1000)).toString(16)}`;
    o.client.create(eventObject(e, name, o.instance)).catch((err: unknown) =>
      o.logger?.warn('could not write event', {
        reason: e.reason,
        object: `${e.object.kind}/${e.object.name}`,
        err: String(err),
      }),
    );
  });
}
