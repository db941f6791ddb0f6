// SPDX-License-Identifier: Apache-2.0
// Which pods the kubelet pass (kubelet.ts runPods) has to look at again, from watches. A pod
// the pass left alone stays alone until it changes, its Node changes (created, Ready, NotReady,
// deleted) or, for a terminating pod, time passes; so the pass reads the pods that changed, those
// on Nodes that changed and the terminating ones, in list order, instead of every pod every tick
// (10,000 pods read per busy tick at 1,000 nodes). The writes, and their order, are the ones a
// pass over every pod makes: the others would make none. The same index answers which pods a
// Node holds (the heartbeat marking a Node NotReady, the termination controller's drain).
//
// It trusts watch events to arrive before the next pass reads (the in-memory cluster delivers
// each write's events before the writer resumes), so the node agent uses it on that cluster only.
import type { ClusterClient } from '../../core/cluster/client.js';
import type { Pod } from '../../core/cluster/types.js';
import { byNamespaceAndName } from '../../core/cluster/sorted-objects.js';

const keyOf = (pod: Pod): string => `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;

export class PodWork {
  /** Pods changed since the last pass, by key; undefined: every pod (first pass, or one that failed). */
  private dirty: Set<string> | undefined;
  /** The latest object of every pod, from the last full list and the events since. */
  private readonly latest = new Map<string, Pod>();
  /** Node name → keys of the pods bound to it. */
  private readonly onNode = new Map<string, Set<string>>();
  /** Pods the last pass left terminating: time alone can make them due. */
  private terminating: readonly string[] = [];
  private readonly watches: { stop(): void }[];

  constructor(client: ClusterClient) {
    this.watches = [
      client.watch('Pod', (e) => {
        if (this.dirty === undefined) return; // the next pass lists everything
        const pod = e.object as Pod;
        const key = keyOf(pod);
        this.unbind(key);
        if (e.type === 'DELETED') this.latest.delete(key);
        else this.remember(key, pod);
        this.dirty.add(key);
      }),
      client.watch('Node', (e) => {
        if (this.dirty === undefined) return;
        for (const key of this.onNode.get(e.object.metadata.name) ?? []) this.dirty.add(key);
      }),
    ];
  }

  /**
   * The pods to pass over, in list order: all of them (listed) the first time, else the changed,
   * those on changed Nodes and the terminating. `done` takes the keys the pass left terminating;
   * a pass that throws calls `failed` instead, and the next pass reads every pod.
   */
  async next(listAll: () => Promise<readonly Pod[]>): Promise<readonly Pod[]> {
    if (this.dirty === undefined) {
      const pods = await listAll();
      this.latest.clear();
      this.onNode.clear();
      for (const pod of pods) this.remember(keyOf(pod), pod);
      this.dirty = new Set();
      return pods;
    }
    const keys = this.dirty;
    for (const key of this.terminating) keys.add(key);
    this.dirty = new Set();
    const out: Pod[] = [];
    for (const key of keys) {
      const pod = this.latest.get(key);
      if (pod !== undefined) out.push(pod);
    }
    return out.sort(byNamespaceAndName);
  }

  /** The pods bound to `node`, in list order (after a first pass: `next` has listed them). */
  podsOn(node: string): Pod[] {
    const out: Pod[] = [];
    for (const key of this.onNode.get(node) ?? []) {
      const pod = this.latest.get(key);
      if (pod !== undefined) out.push(pod);
    }
    return out.sort(byNamespaceAndName);
  }

  /** Whether podsOn can answer (a first pass listed every pod, and none failed since). */
  get tracking(): boolean {
    return this.dirty !== undefined;
  }

  done(terminating: readonly string[]): void {
    this.terminating = terminating;
  }

  failed(): void {
    this.dirty = undefined;
  }

  stop(): void {
    for (const w of this.watches) w.stop();
  }

  private remember(key: string, pod: Pod): void {
    this.latest.set(key, pod);
    const node = pod.spec.nodeName;
    if (!node) return;
    const keys = this.onNode.get(node);
    if (keys) keys.add(key);
    else this.onNode.set(node, new Set([key]));
  }

  private unbind(key: string): void {
    const node = this.latest.get(key)?.spec.nodeName;
    if (!node) return;
    const keys = this.onNode.get(node);
    keys?.delete(key);
    if (keys?.size === 0) this.onNode.delete(node);
  }
}
