// SPDX-License-Identifier: Apache-2.0
// Karpenter's pod-events controller (KARPENTER.md#consolidate-after): a NodeClaim's status.lastPodEventTime is
// bumped when a non-DaemonSet pod is bound to its node, becomes terminal or starts
// terminating — at most every 10 s — so consolidateAfter counts from the last pod change.
import type { ClusterClient, WatchEvent } from '../../core/cluster/client.js';
import { isDaemonSetPod, isTerminal } from '../../core/cluster/state.js';
import type { Node, NodeClaim, Pod } from '../../core/cluster/types.js';
import type { Clock } from '../../core/clock.js';

const MIN_INTERVAL_MS = 10_000;

export class PodEventsController {
  private readonly dirty = new Set<string>(); // node names with a pod event since the last pass
  private readonly seen = new Map<string, string>(); // pod uid → what we last saw (node|phase|terminating)
  private readonly watch: { stop(): void };

  constructor(
    private readonly client: ClusterClient,
    private readonly clock: Clock,
  ) {
    this.watch = client.watch('Pod', (e: WatchEvent) => this.observe(e.object as Pod));
  }

  private observe(pod: Pod): void {
    const node = pod.spec.nodeName;
    if (!node || isDaemonSetPod(pod)) return;
    const state = `${node}|${isTerminal(pod)}|${pod.metadata.deletionTimestamp !== undefined}`;
    const key = pod.metadata.uid ?? `${pod.metadata.namespace}/${pod.metadata.name}`;
    if (this.seen.get(key) === state) return;
    this.seen.set(key, state);
    this.dirty.add(node);
  }

  async reconcile(): Promise<void> {
    if (this.dirty.size === 0) return;
    const now = this.clock.now();
    const nodes = new Map((await this.client.list<Node>('Node')).map((n) => [n.metadata.name, n]));
    // providerID → the first dirty node with it, in the order the nodes became dirty.
    const dirtyByProvider = new Map<string, string>();
    for (const name of this.dirty) {
      const id = nodes.get(name)?.spec.providerID;
      if (id && !dirtyByProvider.has(id)) dirtyByProvider.set(id, name);
    }
    for (const nc of await this.client.list<NodeClaim>('NodeClaim')) {
      const id = nc.status?.providerID;
      const node = id ? dirtyByProvider.get(id) : undefined;
      if (!node || !this.dirty.has(node)) continue;
      const last = Date.parse(nc.status?.lastPodEventTime ?? '');
      if (!Number.isNaN(last) && now - last < MIN_INTERVAL_MS) continue;
      await this.client.patch(
        { kind: 'NodeClaim', name: nc.metadata.name },
        { status: { lastPodEventTime: new Date(now).toISOString().replace('.000Z', 'Z') } },
      );
      this.dirty.delete(node);
    }
    for (const name of this.dirty) if (!nodes.has(name)) this.dirty.delete(name);
  }

  close(): void {
    this.watch.stop();
  }
}
