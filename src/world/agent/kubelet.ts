// SPDX-License-Identifier: Apache-2.0
// The kubelet's side of the simulation, one pass per reconcile: a Node reports NotReady once its
// instance is gone; bound pods start; pods whose grace period has passed are removed; pods bound
// to a Node that no longer exists are removed (the pod garbage collector's job).
import type { ClusterClient } from '../../core/cluster/client.js';
import { isApiError } from '../../core/cluster/client.js';
import type { Node, Pod } from '../../core/cluster/types.js';
import type { Instance } from '../cloud/provider.js';
import { rfc3339 } from '../../core/cluster/memory/timestamps.js';
import { isTrue, withCondition } from './conditions.js';

export const NODE_NOT_READY_REASON = 'NodeStatusUnknown';
export const NODE_NOT_READY_MESSAGE = 'Kubelet stopped posting node status.';

const POD_READY_CONDITIONS = ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'] as const;

/** 404 and 409 mean someone else changed the object first: undefined, and the next pass sees the new state. */
export async function raced<T>(write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (e) {
    if (isApiError(e, 404) || isApiError(e, 409)) return undefined;
    throw e;
  }
}

/** raced() for writes whose result is not needed: whether the write landed. */
export async function tolerateRace(write: () => Promise<unknown>): Promise<boolean> {
  let landed = false;
  await raced(async () => {
    await write();
    landed = true;
  });
  return landed;
}

/** Nodes by name (of equal names, the last listed: as a Map built from the list keeps). */
export function nodesByName(nodes: readonly Node[]): Map<string, Node> {
  const out = new Map<string, Node>();
  for (const n of nodes) out.set(n.metadata.name, n);
  return out;
}

/** Pods by spec.nodeName, each node's in list order. */
export function podsByNode(pods: readonly Pod[]): Map<string, Pod[]> {
  const out = new Map<string, Pod[]>();
  for (const pod of pods) {
    const n = pod.spec.nodeName;
    if (n === undefined) continue;
    const list = out.get(n);
    if (list) list.push(pod);
    else out.set(n, [pod]);
  }
  return out;
}

/**
 * Marks Nodes NotReady (Ready=Unknown, as the node lifecycle controller does when heartbeats stop)
 * when their instance is terminating or gone, and their pods not Ready. Returns the names marked.
 */
export async function heartbeatNodes(
  client: ClusterClient,
  nodes: readonly Node[],
  /** The pods bound to a Node, in list order. */
  podsOn: (node: string) => Promise<readonly Pod[]>,
  /** The cloud's instances by providerID (the terminated left out), as listed. */
  live: { get(providerID: string): Instance | undefined },
  now: number,
): Promise<string[]> {
  const marked: string[] = [];
  // An index loop: a for-of with an await inside allocates an iterator result per Node.
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    const id = node.spec.providerID;
    if (id === undefined || !isTrue(node.status?.conditions, 'Ready')) continue;
    const inst = live.get(id);
    if (inst !== undefined && (inst.state === 'running' || inst.state === 'pending')) continue;
    const conditions = withCondition(
      node.status?.conditions,
      now,
      'Ready',
      'Unknown',
      NODE_NOT_READY_REASON,
      NODE_NOT_READY_MESSAGE,
    );
    const ok = await tolerateRace(() =>
      client.patch(
        { kind: 'Node', name: node.metadata.name },
        { status: { conditions } },
        { resourceVersion: node.metadata.resourceVersion },
      ),
    );
    if (!ok) continue;
    marked.push(node.metadata.name);
    for (const pod of await podsOn(node.metadata.name)) {
      if (!isTrue(pod.status?.conditions, 'Ready')) continue;
      const podConditions = withCondition(pod.status?.conditions, now, 'Ready', 'False', '', '');
      await tolerateRace(() =>
        client.patch(
          podKey(pod),
          { status: { conditions: podConditions } },
          { resourceVersion: pod.metadata.resourceVersion },
        ),
      );
    }
  }
  return marked;
}

export interface PodPass {
  started: string[]; // namespace/name
  removed: string[];
  /** Whether a terminating pod is left (a later pass removes it once its grace is over). */
  terminating: boolean;
  /** Those pods (namespace/name), and any whose removal raced: what time or a retry may change. */
  terminatingPods: string[];
}

/**
 * Starts bound Pending pods on Ready nodes; removes pods past their grace and pods on missing
 * nodes. Pods on a Node that `owns` refuses are left to that Node's own kubelet.
 */
export async function runPods(
  client: ClusterClient,
  /** The Nodes by name (nodesByName: the pass reads a few pods, not every Node). */
  byName: { get(name: string): Node | undefined },
  pods: readonly Pod[],
  notReady: ReadonlySet<string>,
  now: number,
  owns?: (node: Node) => boolean,
): Promise<PodPass> {
  const out: PodPass = { started: [], removed: [], terminating: false, terminatingPods: [] };
  for (const pod of pods) {
    const nodeName = pod.spec.nodeName;
    if (nodeName === undefined || nodeName === '') continue;
    const node = byName.get(nodeName);
    if (node !== undefined && owns !== undefined && !owns(node)) continue;
    const ready = node !== undefined && isTrue(node.status?.conditions, 'Ready') && !notReady.has(nodeName);
    const deletion =
      pod.metadata.deletionTimestamp === undefined ? undefined : Date.parse(pod.metadata.deletionTimestamp);
    // A missing node: pod GC deletes. A terminating pod: its kubelet deletes it once the grace is over, if that kubelet
    // is alive.
    if (node === undefined || (deletion !== undefined && ready && deletion <= now)) {
      const ok = await tolerateRace(() =>
        client.delete(podKey(pod), { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } }),
      );
      if (ok) out.removed.push(keyText(pod));
      else {
        out.terminating = true;
        out.terminatingPods.push(keyText(pod));
      }
      continue;
    }
    if (deletion !== undefined) {
      out.terminating = true;
      out.terminatingPods.push(keyText(pod));
    }
    if (deletion !== undefined || !ready) continue;
    const phase = pod.status?.phase;
    if (phase !== undefined && phase !== 'Pending') continue;
    let conditions = pod.status?.conditions;
    for (const type of POD_READY_CONDITIONS) conditions = withCondition(conditions, now, type, 'True', '', '');
    const status = { ...pod.status, phase: 'Running', startTime: pod.status?.startTime ?? rfc3339(now), conditions };
    const ok = await tolerateRace(() =>
      client.patch(podKey(pod), { status }, { resourceVersion: pod.metadata.resourceVersion }),
    );
    if (ok) out.started.push(keyText(pod));
  }
  return out;
}

const podKey = (pod: Pod) => ({
  kind: 'Pod' as const,
  name: pod.metadata.name,
  namespace: pod.metadata.namespace ?? 'default',
});
const keyText = (pod: Pod): string => `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
