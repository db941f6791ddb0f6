// SPDX-License-Identifier: Apache-2.0
// The node agent plays the cloud-facing half of Karpenter's NodeClaim lifecycle plus the kubelet
// (what KWOK does in Karpenter's own tests), one pass per reconcile():
//   launch    NodeClaim without status.providerID → cloud.create(); providerID, capacity,
//             allocatable, resolved labels, Launched=True.
//   register  instance running → create the Node (labels, taints + startup taints, providerID,
//             resources, Ready=True, owner NodeClaim, termination finalizer); Registered=True.
//   initialize  initDelayMs after registration → drop startup taints, label the Node
//             karpenter.sh/initialized=true, Initialized=True.
//   kubelet   bound Pending pods → Running; pods past their grace → removed; pods on missing
//             Nodes → removed; Nodes whose instance is gone → NotReady.
// Launch failures, as Karpenter's launch and liveness controllers handle them:
//   InsufficientCapacity → Launched=False (reason InsufficientCapacity), Warning event
//             InsufficientCapacityError, NodeClaim deleted at once (the provisioner makes a new one).
//   other errors → Launched=False (reason LaunchFailed), retried every pass; deleted once the
//             condition has been False for launchTimeoutMs (Karpenter's LaunchTimeout, 5 min).
//   launched but no Node within registrationTimeoutMs (15 min) → NodeClaim deleted.
//   A deleting NodeClaim that never got an instance has nothing to clean up: the agent removes
//   its termination finalizer (Karpenter's lifecycle finalizer does the same).
// It binds no pods (the scheduling simulation does) and deletes no instances (termination does).
import type { Clock } from '../../core/clock.js';
import type { ClusterClient } from '../../core/cluster/client.js';
import { ChangeFlag } from '../controllers/change-flag.js';
import {
  FINALIZER_TERMINATION,
  LABEL_INITIALIZED,
  type Node,
  type NodeClaim,
  type Pod,
} from '../../core/cluster/types.js';
import {
  CloudError,
  type CloudProvider,
  type Instance,
  type InstanceChange,
  type InstanceType,
} from '../cloud/provider.js';
import type { EventRecorder } from '../../core/observe/recorder.js';
import { findCondition } from '../../core/cluster/state.js';
import { isTrue, transitionTime, withCondition } from './conditions.js';
import { heartbeatNodes, nodesByName, podsByNode, raced, runPods, tolerateRace } from './kubelet.js';
import { buildNode, formatResourceList, launchedLabels, nodeNameFor } from './node-objects.js';
import { PodWork } from './pod-work.js';
import { ChangedNodes, claimSettled, MachineChanges } from './machine-changes.js';
import { MachineIndex } from './machine-index.js';
import { position } from '../../core/cluster/sorted-objects.js';

export const LAUNCH_TIMEOUT_MS = 5 * 60_000;
export const REGISTRATION_TIMEOUT_MS = 15 * 60_000;
export const REASON_INSUFFICIENT_CAPACITY = 'InsufficientCapacity';
export const REASON_LAUNCH_FAILED = 'LaunchFailed';

export interface NodeAgentOptions {
  client: ClusterClient;
  cloud: CloudProvider;
  clock: Clock;
  recorder?: EventRecorder;
  /** Registered → Initialized. Default 0 (initialized in the same pass as registration). */
  initDelayMs?: number;
  launchTimeoutMs?: number;
  registrationTimeoutMs?: number;
  /**
   * The Nodes it plays kubelet for (heartbeat, starting and finishing pods). Default: every Node.
   * Standalone on a real cluster: only the simulated cloud's (src/world/cloud/ownership.ts); other
   * Nodes have a kubelet of their own.
   */
  ownsNode?: (node: Node) => boolean;
  /**
   * The client delivers a write's watch events before the writer resumes (the in-memory cluster):
   * the kubelet pass then reads only the pods that can need it (pod-work.ts) and the heartbeat runs
   * only when a Node or the cloud changed. Default false: every pass reads everything.
   */
  promptWatches?: boolean;
}

/** What one pass did (names; pods as namespace/name). */
export interface AgentPass {
  launched: string[];
  launchFailed: string[];
  registered: string[];
  initialized: string[];
  deletedNodeClaims: string[];
  finalized: string[];
  podsStarted: string[];
  podsRemoved: string[];
  nodesNotReady: string[];
}

const emptyPass = (): AgentPass => ({
  launched: [],
  launchFailed: [],
  registered: [],
  initialized: [],
  deletedNodeClaims: [],
  finalized: [],
  podsStarted: [],
  podsRemoved: [],
  nodesNotReady: [],
});

/** The results of the machine part of a pass (NodeClaims and Nodes; the rest is the pod pass). */
const MACHINE_RESULTS = [
  'launched',
  'launchFailed',
  'registered',
  'initialized',
  'deletedNodeClaims',
  'finalized',
  'nodesNotReady',
] as const satisfies readonly (keyof AgentPass)[];

/** What the last machine part saw: the cloud's change stamp, whether it left work for time, the Nodes it listed. */
interface Machines {
  stamp: string | undefined;
  pending: boolean;
  /** Undefined when the part read them from the machine index (its Nodes are the index's now). */
  nodes: readonly Node[] | undefined;
  byName?: Map<string, Node>;
  byProviderID?: Map<string, Node>;
}

/** Nodes by providerID (of equal ids, the last listed), built without a list of pairs: 5,000 nodes a busy tick. */
function nodesByProviderID(nodes: readonly Node[]): Map<string, Node> {
  const out = new Map<string, Node>();
  for (const n of nodes) if (n.spec.providerID) out.set(n.spec.providerID, n);
  return out;
}

/**
 * The Nodes as the machine part last saw them, by name: none changed since but for the heartbeat's
 * NotReady marks, which the pod pass is told of. Kept from watches: the index's, now.
 */
function nodesOf(machines: Machines, index: MachineIndex | undefined): { get(name: string): Node | undefined } {
  if (machines.nodes === undefined) {
    if (index?.tracking !== true) throw new Error('node agent: no Nodes to read'); // unreachable
    return { get: (name) => index.node(name) };
  }
  return index ? sortedByName(machines.nodes) : (machines.byName ??= nodesByName(machines.nodes));
}

/** Nodes by name from a list in name order (the in-memory server's): a binary search, not a map of 5,000. */
function sortedByName(nodes: readonly Node[]): { get(name: string): Node | undefined } {
  return {
    get: (name) => {
      const p = position(nodes, { metadata: { name } } as Node);
      return p.found ? nodes[p.at] : undefined;
    },
  };
}

const truncate = (msg: string): string => (msg.length < 300 ? msg : `${msg.slice(0, 300)}...`);

export class NodeAgent {
  private readonly client: ClusterClient;
  private readonly cloud: CloudProvider;
  private readonly clock: Clock;
  private readonly recorder: EventRecorder | undefined;
  private readonly initDelayMs: number;
  private readonly launchTimeoutMs: number;
  private readonly registrationTimeoutMs: number;
  private readonly ownsNode: ((node: Node) => boolean) | undefined;
  /**
   * Instances launched for a NodeClaim uid whose status write has not landed yet: never launch twice (Karpenter's
   * launch cache).
   */
  private readonly launchedByUid = new Map<string, Instance>();
  private readonly podChanges: ChangeFlag;
  /** Whether the last pod pass saw a terminating pod (removed once its grace is over: time alone changes that). */
  private terminatingPods = true;
  /**
   * A settled pass (every NodeClaim launched, registered and initialized, nothing written, no
   * terminating pod) is followed by the same until a NodeClaim, Node or Pod changes or the cloud
   * reports a change (an instance starting or going, a notice): those are all it reads, and
   * none of its timeouts is running. A quiet cluster's tick then skips its scans.
   */
  private readonly changes: ChangeFlag;
  private settled = false;
  private cloudStamp: string | undefined;
  /** promptWatches only: the pods the next kubelet pass must read. */
  private readonly podWork: PodWork | undefined;
  /**
   * promptWatches only: a heartbeat marks nothing new until a Node or the cloud changes (its only
   * inputs); with the cloud's change stamp it last saw unchanged, it reads only the changed Nodes.
   */
  private readonly nodeChanges: ChangedNodes | undefined;
  private heartbeatStamp: string | undefined;
  /**
   * promptWatches only: where the heartbeat last read the cloud's changes (changesSince), and the
   * changes it read that take effect later. With them a heartbeat after the cloud moved reads the
   * Nodes of the changed instances and the changed Nodes, not every Node.
   */
  private cloudCursor = 0;
  private laterChanges: readonly InstanceChange[] = [];
  /**
   * The machine part (launch, register, initialize, finalize, heartbeat) runs again only when a
   * Node changed, the cloud's stamp moved, a changed NodeClaim needs it, or the last part left
   * something pending or wrote; else a pass after one pod event reads one pod, not every
   * NodeClaim, Node and instance.
   */
  private readonly machineChanges: MachineChanges;
  private machines: Machines | undefined;
  /**
   * promptWatches only: the NodeClaims the machine part may act on and the Nodes by providerID,
   * kept from watches (machine-index.ts), so a part that runs reads those, not every NodeClaim twice.
   */
  private readonly machineIndex: MachineIndex | undefined;
  private useWatches: boolean;

  constructor(opts: NodeAgentOptions) {
    this.client = opts.client;
    this.cloud = opts.cloud;
    this.clock = opts.clock;
    this.recorder = opts.recorder;
    this.initDelayMs = opts.initDelayMs ?? 0;
    this.launchTimeoutMs = opts.launchTimeoutMs ?? LAUNCH_TIMEOUT_MS;
    this.registrationTimeoutMs = opts.registrationTimeoutMs ?? REGISTRATION_TIMEOUT_MS;
    this.ownsNode = opts.ownsNode;
    this.podChanges = new ChangeFlag(opts.client, ['Pod', 'Node']);
    this.changes = new ChangeFlag(opts.client, ['NodeClaim', 'Node', 'Pod']);
    this.podWork = opts.promptWatches ? new PodWork(opts.client) : undefined;
    this.nodeChanges = opts.promptWatches ? new ChangedNodes(opts.client) : undefined;
    this.machineChanges = new MachineChanges(opts.client);
    this.machineIndex = opts.promptWatches ? new MachineIndex(opts.client) : undefined;
    this.useWatches = opts.promptWatches === true;
  }

  /**
   * Whether promptWatches are used (default: when given). Off, every pass reads every pod and
   * heartbeats every Node: the reference the simulated-timeline test compares with.
   */
  get incremental(): boolean {
    return this.useWatches;
  }

  set incremental(on: boolean) {
    this.useWatches = on && this.podWork !== undefined;
    // Off: the tracker stops following events; on again, its first pass lists every pod.
    if (!this.useWatches) this.podWork?.failed();
    this.machineIndex?.failed();
    this.heartbeatStamp = undefined;
    this.machines = undefined;
  }

  /**
   * promptWatches only: the pods bound to a Node, in list order, as of the latest watch event;
   * undefined when not known (another client, or before the first pass): list them instead.
   */
  podsOn(node: string): readonly Pod[] | undefined {
    return this.useWatches && this.podWork?.tracking ? this.podWork.podsOn(node) : undefined;
  }

  async reconcile(): Promise<AgentPass> {
    let pass: AgentPass = emptyPass();
    const stamp = this.cloud.changeStamp?.();
    const cloudQuiet = stamp !== undefined && stamp === this.cloudStamp;
    await this.changes.ifChanged(async () => {
      this.cloudStamp = stamp;
      const { result, pending } = await this.pass();
      pass = result;
      this.settled = !pending && !this.terminatingPods && Object.values(result).every((names) => names.length === 0);
    }, !this.settled || !cloudQuiet);
    return pass;
  }

  private async pass(): Promise<{ result: AgentPass; pending: boolean }> {
    const pass = emptyPass();
    const owns = this.ownsNode;
    let pods: Pod[] | undefined;
    const podsNow = async (): Promise<Pod[]> => (pods ??= await this.client.list<Pod>('Pod'));
    // Grouped once: a busy tick marks many nodes, and each would otherwise read every pod.
    let byNode: Map<string, Pod[]> | undefined;
    const work = this.useWatches ? this.podWork : undefined;
    const podsOn = async (node: string): Promise<readonly Pod[]> =>
      work?.tracking ? work.podsOn(node) : ((byNode ??= podsByNode(await podsNow())).get(node) ?? []);

    // The machine part reads NodeClaims, Nodes, the cloud and, while a NodeClaim is on its way, the
    // time: after a part that settled everything, with no Node and no instance changed and every
    // changed NodeClaim still settled, it would do nothing again (machine-changes.ts).
    const stamp = this.cloud.changeStamp?.();
    const changed = this.machineChanges.take();
    const last = this.machines;
    const index = this.useWatches && this.machineIndex?.tracking ? this.machineIndex : undefined;
    const quiet =
      this.useWatches &&
      last !== undefined &&
      !last.pending &&
      stamp !== undefined &&
      stamp === last.stamp &&
      !changed.nodes &&
      [...changed.claims.values()].every(
        (nc) =>
          nc === undefined ||
          // No Node changed since the last part: the Nodes now are those it listed.
          (index
            ? index.settled(nc)
            : last.nodes !== undefined && claimSettled(nc, (last.byProviderID ??= nodesByProviderID(last.nodes)))),
      );
    if (!quiet) {
      this.machines = undefined; // a part that throws leaves nothing to reuse
      let part;
      try {
        part = await this.machinePass(pass, podsOn);
      } catch (e) {
        this.machineChanges.failed();
        this.machineIndex?.failed();
        throw e;
      }
      const wrote = MACHINE_RESULTS.some((k) => pass[k].length > 0);
      this.machines = { stamp, pending: part.pending || wrote, nodes: part.nodes };
    }
    const machines = this.machines as Machines | undefined;
    if (machines === undefined) throw new Error('node agent: the machine part did not run'); // unreachable
    // The pod pass depends on pods, Nodes (marking one NotReady is a Node write) and, for
    // terminating pods only, the time: without a change or a terminating pod it would do nothing.
    await this.podChanges.ifChanged(async () => {
      const pods = work ? await work.next(podsNow) : await podsNow();
      // The Nodes as the machine part last listed them: none changed since, or it would have run.
      const nodes = nodesOf(machines, this.useWatches ? this.machineIndex : undefined);
      let podPass;
      try {
        podPass = await runPods(this.client, nodes, pods, new Set(pass.nodesNotReady), this.clock.now(), owns);
      } catch (e) {
        work?.failed();
        throw e;
      }
      work?.done(podPass.terminatingPods);
      pass.podsStarted = podPass.started;
      pass.podsRemoved = podPass.removed;
      this.terminatingPods = podPass.terminating;
    }, this.terminatingPods);
    return { result: pass, pending: machines.pending };
  }

  /**
   * Launches, registers, initializes and finalizes NodeClaims and runs the heartbeat; returns
   * whether some NodeClaim is still on its way and the Nodes as listed before the heartbeat.
   */
  private async machinePass(
    pass: AgentPass,
    podsOn: (node: string) => Promise<readonly Pod[]>,
  ): Promise<{ pending: boolean; nodes: readonly Node[] | undefined }> {
    /** Some NodeClaim is not yet launched, registered and initialized: its timeouts run with time. */
    let pending = false;
    // Kept from watches: the part reads the unsettled NodeClaims and their Nodes as a list made at
    // that moment would hold them (machine-index.ts), not every NodeClaim and Node.
    const index = this.useWatches && this.machineIndex?.tracking ? this.machineIndex : undefined;
    index?.mark();
    // Deleting (finalizeUnlaunched acts only without an instance) or not launched: unsettled either way.
    const claims = index
      ? index.unsettledNow((nc) => nc.metadata.deletionTimestamp !== undefined || !nc.status?.providerID)
      : await this.client.list<NodeClaim>('NodeClaim');
    let types: Map<string, InstanceType> | undefined;
    // Index loops: a for-of with an await inside allocates an iterator result per NodeClaim (5,000 a pass).
    for (let i = 0; i < claims.length; i++) {
      const nc = claims[i]!;
      if (nc.metadata.deletionTimestamp !== undefined) await this.finalizeUnlaunched(nc, pass);
      else if (!nc.status?.providerID) {
        pending = true;
        await this.launch(nc, (types ??= new Map(this.cloud.instanceTypes().map((t) => [t.name, t]))), pass);
      }
    }

    // Kept from watches, the part looks up the few instances it reads rather than list them all.
    const live = index && this.cloud.describer ? { get: this.cloud.describer() } : await this.listLive();
    let claimsNow: readonly NodeClaim[];
    let nodeOf: (nc: NodeClaim, i: number) => Node | undefined;
    if (index) {
      claimsNow = index.unsettledNow((nc) => !!nc.status?.providerID && !nc.metadata.deletionTimestamp);
      // Each one's Node as of now, before the loop writes any: what a map built from a list made now answers.
      const found = claimsNow.map((nc) => index.nodeNow(nc.status!.providerID!));
      nodeOf = (_nc, i) => found[i];
    } else {
      const byProviderID = nodesByProviderID(await this.client.list<Node>('Node'));
      claimsNow = await this.client.list<NodeClaim>('NodeClaim');
      nodeOf = (nc) => byProviderID.get(nc.status!.providerID!);
    }
    for (let i = 0; i < claimsNow.length; i++) {
      const nc = claimsNow[i]!;
      const id = nc.status?.providerID;
      if (!id || nc.metadata.deletionTimestamp !== undefined) continue;
      const node = nodeOf(nc, i);
      // A registered, initialized machine with its Node has nothing left here: skip the async step (5,000 awaits a tick
      // at 5k nodes).
      if (
        node !== undefined &&
        isTrue(nc.status?.conditions, 'Registered') &&
        isTrue(nc.status?.conditions, 'Initialized')
      )
        continue;
      pending = true;
      await this.registerAndInitialize(nc, id, node, live.get(id), pass);
    }

    // The Nodes as listed now (every one, or with the index those named): the heartbeat's input.
    let listed: readonly Node[] | undefined;
    const nodesNow = async (only?: ReadonlySet<string>): Promise<readonly Node[]> =>
      index && only !== undefined ? index.nodesNamed(only) : (listed ??= await this.client.list<Node>('Node'));
    if (!index) await nodesNow();
    await this.heartbeatPart(nodesNow, index, live, podsOn, pass);
    if (this.machineIndex && this.useWatches && !index) {
      // The first part (or the first after one failed): from here on, watches keep the index.
      const [claimsAfter, nodesAfter] = [
        await this.client.list<NodeClaim>('NodeClaim'),
        await this.client.list<Node>('Node'),
      ];
      this.machineIndex.build(claimsAfter, nodesAfter);
    }
    return { pending, nodes: listed };
  }

  /**
   * The heartbeat over the Nodes as listed (`nodesNow`, in name order): every one, or with
   * promptWatches only those changed since it last ran while the cloud's change stamp stands still.
   */
  private async heartbeatPart(
    nodesNow: (only?: ReadonlySet<string>) => Promise<readonly Node[]>,
    index: MachineIndex | undefined,
    live: { get(providerID: string): Instance | undefined },
    podsOn: (node: string) => Promise<readonly Pod[]>,
    pass: AgentPass,
  ): Promise<void> {
    const owns = this.ownsNode;
    const heartbeat = async (only?: ReadonlySet<string>): Promise<void> => {
      const all = await nodesNow(only);
      const nodes = only === undefined || index ? all : all.filter((n) => only.has(n.metadata.name));
      pass.nodesNotReady = await heartbeatNodes(
        this.client,
        owns ? nodes.filter(owns) : nodes,
        podsOn,
        live,
        this.clock.now(),
      );
    };
    if (this.nodeChanges === undefined || !this.useWatches) {
      await heartbeat();
      return;
    }
    const stamp = this.cloud.changeStamp?.();
    const cloudChanged = stamp === undefined || stamp !== this.heartbeatStamp;
    const changed = this.nodeChanges.take();
    if (!cloudChanged && changed !== undefined && changed.size === 0) return;
    this.heartbeatStamp = stamp;
    const moved = this.cloudChanges();
    try {
      // A Node's verdict moves only with the Node or its instance: else it is the one the last heartbeat gave.
      // Without the cloud's changes (or the Nodes by providerID), every Node's instance may have moved.
      let only = changed;
      if (cloudChanged && (moved === undefined || index === undefined)) only = undefined;
      else if (only !== undefined && moved !== undefined && index !== undefined && moved.size > 0) {
        const names = new Set(only);
        for (const id of moved) for (const name of index.nodeNames(id)) names.add(name);
        only = names;
      }
      await heartbeat(only);
    } catch (e) {
      this.nodeChanges.failed();
      throw e;
    }
  }

  /** The cloud's instances by providerID (the terminated left out). */
  private async listLive(): Promise<Map<string, Instance>> {
    const live = new Map<string, Instance>();
    const instances = await this.cloud.list();
    for (let i = 0; i < instances.length; i++) live.set(instances[i]!.providerID, instances[i]!);
    return live;
  }

  /**
   * The providerIDs whose instance state changed since the last call, up to now (undefined: the
   * cloud does not say); changes that take effect later are kept for a later call.
   */
  private cloudChanges(): ReadonlySet<string> | undefined {
    if (this.cloud.changesSince === undefined) return undefined;
    const { changes, cursor, whole } = this.cloud.changesSince(this.cloudCursor);
    this.cloudCursor = cursor;
    const now = this.clock.now();
    const due = new Set<string>();
    const later: InstanceChange[] = [];
    for (const list of [this.laterChanges, changes])
      for (const c of list) {
        if (c.at <= now) due.add(c.providerID);
        else later.push(c);
      }
    this.laterChanges = later;
    return whole ? undefined : due;
  }

  private async launch(nc: NodeClaim, types: ReadonlyMap<string, InstanceType>, pass: AgentPass): Promise<void> {
    const now = this.clock.now();
    const name = nc.metadata.name;
    const failedAt =
      findCondition(nc.status?.conditions, 'Launched')?.status === 'False'
        ? transitionTime(nc.status?.conditions, 'Launched')
        : undefined;
    if (failedAt !== undefined && now - failedAt >= this.launchTimeoutMs) {
      if (await tolerateRace(() => this.client.delete({ kind: 'NodeClaim', name }))) pass.deletedNodeClaims.push(name);
      return;
    }
    const uid = nc.metadata.uid ?? name;
    let inst = this.launchedByUid.get(uid);
    if (inst === undefined) {
      try {
        inst = await this.cloud.create(nc);
      } catch (e) {
        await this.launchFailed(nc, e, pass);
        return;
      }
      this.launchedByUid.set(uid, inst);
    }
    const it = types.get(inst.instanceType);
    const launched: NodeClaim = {
      ...nc,
      metadata: { ...nc.metadata, labels: launchedLabels(nc, it, inst) },
      status: {
        ...nc.status,
        providerID: inst.providerID,
        capacity: formatResourceList(it?.nodeCapacity ?? it?.capacity ?? {}),
        allocatable: formatResourceList(it?.capacity ?? {}),
        conditions: withCondition(nc.status?.conditions, now, 'Launched', 'True', 'Launched'),
      },
    };
    if (await tolerateRace(() => this.client.update(launched))) {
      this.launchedByUid.delete(uid);
      pass.launched.push(name);
    }
  }

  private async launchFailed(nc: NodeClaim, e: unknown, pass: AgentPass): Promise<void> {
    if (!(e instanceof CloudError)) throw e;
    const name = nc.metadata.name;
    const ice = e.insufficientCapacity;
    const conditions = withCondition(
      nc.status?.conditions,
      this.clock.now(),
      'Launched',
      'False',
      ice ? REASON_INSUFFICIENT_CAPACITY : REASON_LAUNCH_FAILED,
      truncate(e.message),
    );
    pass.launchFailed.push(name);
    await tolerateRace(() =>
      this.client.patch(
        { kind: 'NodeClaim', name },
        { status: { conditions } },
        { resourceVersion: nc.metadata.resourceVersion },
      ),
    );
    if (!ice) return;
    this.recorder?.publish({
      type: 'Warning',
      reason: 'InsufficientCapacityError',
      message: `NodeClaim ${name} event: ${truncate(e.message)}`,
      object: { kind: 'NodeClaim', name, ...(nc.metadata.uid ? { uid: nc.metadata.uid } : {}) },
    });
    if (await tolerateRace(() => this.client.delete({ kind: 'NodeClaim', name }))) pass.deletedNodeClaims.push(name);
  }

  /**
   * A deleting NodeClaim with no instance recorded: nothing to terminate, so its termination
   * finalizer goes. An instance launched for it whose status write never landed is deleted first.
   */
  private async finalizeUnlaunched(nc: NodeClaim, pass: AgentPass): Promise<void> {
    const finalizers = nc.metadata.finalizers ?? [];
    if (nc.status?.providerID || !finalizers.includes(FINALIZER_TERMINATION)) return;
    const uid = nc.metadata.uid ?? nc.metadata.name;
    const cached = this.launchedByUid.get(uid);
    if (cached !== undefined) {
      await this.cloud.delete(cached.providerID);
      this.launchedByUid.delete(uid);
    }
    const rest = finalizers.filter((f) => f !== FINALIZER_TERMINATION);
    const ok = await tolerateRace(() =>
      this.client.patch(
        { kind: 'NodeClaim', name: nc.metadata.name },
        { metadata: { finalizers: rest.length ? rest : null } },
        { resourceVersion: nc.metadata.resourceVersion },
      ),
    );
    if (ok) pass.finalized.push(nc.metadata.name);
  }

  private async registerAndInitialize(
    nc: NodeClaim,
    providerID: string,
    node: Node | undefined,
    inst: Instance | undefined,
    pass: AgentPass,
  ): Promise<void> {
    const now = this.clock.now();
    const name = nc.metadata.name;
    let current = nc;
    if (node === undefined) {
      if (inst?.state !== 'running') {
        const launchedAt = transitionTime(nc.status?.conditions, 'Launched');
        if (
          !isTrue(nc.status?.conditions, 'Registered') &&
          launchedAt !== undefined &&
          now - launchedAt >= this.registrationTimeoutMs
        ) {
          if (await tolerateRace(() => this.client.delete({ kind: 'NodeClaim', name })))
            pass.deletedNodeClaims.push(name);
        }
        return;
      }
      if (isTrue(nc.status?.conditions, 'Registered')) return; // its Node was deleted: not re-registered
      if (!(await tolerateRace(() => this.client.create(buildNode(nc, providerID, now))))) return;
      node = await this.client.get<Node>({ kind: 'Node', name: nodeNameFor(providerID) });
      if (node === undefined) return;
    }
    if (!isTrue(nc.status?.conditions, 'Registered')) {
      const status = {
        ...nc.status,
        nodeName: node.metadata.name,
        conditions: withCondition(nc.status?.conditions, now, 'Registered', 'True', 'Registered'),
      };
      const updated = await raced(() =>
        this.client.patch<NodeClaim>(
          { kind: 'NodeClaim', name },
          { status },
          { resourceVersion: nc.metadata.resourceVersion },
        ),
      );
      if (updated === undefined) return;
      current = updated;
      pass.registered.push(name);
    }
    if (isTrue(current.status?.conditions, 'Initialized')) return;
    const registeredAt = transitionTime(current.status?.conditions, 'Registered') ?? now;
    if (now - registeredAt < this.initDelayMs || !isTrue(node.status?.conditions, 'Ready')) return;
    const startup = current.spec.startupTaints ?? [];
    // Also the not-ready taint a real API server's admission puts on every new Node: the node
    // lifecycle controller lifts it once the Node is Ready, and a kubelet-less cluster runs none.
    const taints = (node.spec.taints ?? []).filter(
      (t) => t.key !== 'node.kubernetes.io/not-ready' && !startup.some((s) => s.key === t.key && s.effect === t.effect),
    );
    const nodeOk = await tolerateRace(() =>
      this.client.patch(
        { kind: 'Node', name: node.metadata.name },
        {
          metadata: { labels: { [LABEL_INITIALIZED]: 'true' } },
          spec: { taints },
        },
        { resourceVersion: node.metadata.resourceVersion },
      ),
    );
    if (!nodeOk) return;
    const conditions = withCondition(current.status?.conditions, now, 'Initialized', 'True', 'Initialized');
    if (
      await tolerateRace(() =>
        this.client.patch(
          { kind: 'NodeClaim', name },
          { status: { conditions } },
          { resourceVersion: current.metadata.resourceVersion },
        ),
      )
    ) {
      pass.initialized.push(name);
    }
  }
}
