// SPDX-License-Identifier: Apache-2.0
// The embedded simulated cluster and the controller, wired together on one injected clock.
// One `tick()` runs every controller once, in a fixed order: the node agent (kubelet + cloud),
// workload controllers, the provisioner, interruption, expiration, disruption, the command
// queue and termination. `kpol run`, `kpol simulate` and the scenario tests all drive this.
import type { PolicySpec } from '../../../rules/model.js';
import { NodeAgent } from '../../world/agent/node-agent.js';
import { InterruptionController } from '../../world/agent/interruption.js';
import { SimulatedCloud, type SimulatedCloudOptions } from '../../world/cloud/simulated-cloud.js';
import { OWNS_EVERYTHING, type Ownership } from '../../world/cloud/ownership.js';
import type { InstanceType } from '../../world/cloud/provider.js';
import type { ClusterClient, Kind } from '../../core/cluster/client.js';
import { MemoryCluster } from '../../core/cluster/memory/memory-cluster.js';
import type { KubeObject, NodeClaim, NodePool } from '../../core/cluster/types.js';
import type { Clock } from '../../core/clock.js';
import { PdbStatusController } from '../../world/controllers/pdb-status.js';
import { ReplicaSetController } from '../../world/controllers/replicaset.js';
import { Evaluator } from '../../core/eval/evaluate-cluster.js';
import { resolvePolicies } from '../../core/eval/resolve-policies.js';
import { EventLog } from '../../core/observe/event-log.js';
import { createKarpenterMetrics } from '../../core/observe/karpenter-metrics.js';
import type { Logger } from '../../core/observe/logger.js';
import type { MetricsRegistry } from '../../core/observe/metrics.js';
import { NodeClaimFactory } from '../provisioning/nodeclaim-factory.js';
import { Provisioner } from '../provisioning/provisioner.js';
import { ClusterView, VIEW_KINDS } from '../reconciler/cluster-view.js';
import { DisruptionController, type ReconcileResult } from '../reconciler/disruption-controller.js';
import { InFlight } from '../reconciler/disruption-state.js';
import { ExpirationController } from '../reconciler/expiration.js';
import { reconcileNodePoolHashes } from '../reconciler/nodepool-hash.js';
import { PodEventsController } from '../reconciler/pod-events.js';
import { OrchestrationQueue } from '../reconciler/queue.js';
import { simulateMove } from '../reconciler/move-simulation.js';
import type { SimulationEnv } from '../../world/scheduling/cluster-simulation.js';
import { SimulationPass } from '../reconciler/simulation-pass.js';
import { SchedulingCache } from '../../world/scheduling/scheduling-cache.js';
import type { ClusterIndex } from '../../core/cluster/state.js';
import { toCandidate } from '../reconciler/methods/candidates.js';
import { TerminationController } from '../termination/controller.js';
import { OwnedNodeClaims } from './owned-cluster.js';
import { recordObservedStarts } from '../reconciler/disruption-record.js';
import { hasRateBudgets } from '../../core/eval/rate-use.js';

export interface RuntimeOptions {
  clock: Clock;
  /**
   * Seeds the embedded MemoryCluster. With `cluster` given they are not written anywhere: their
   * NodeClaims only tell the simulated cloud which machines already run. Read once, in order: a
   * generator lets each object go as soon as the store holds its copy, so a large seed is never
   * alive whole beside the store (test/bench/peak-rss.ts seeds 150,000 pods so).
   */
  objects: Iterable<KubeObject>;
  /** The API server to act on. Default: an embedded MemoryCluster seeded with `objects`. */
  cluster?: ClusterClient;
  /**
   * Run the ReplicaSet and PDB-status controllers in-process. Default: only for the embedded
   * cluster — a real one has kube-controller-manager for that.
   */
  workloadControllers?: boolean;
  /** The provisioner binds pods it places on existing nodes. Default true; false where kube-scheduler binds. */
  bindPods?: boolean;
  policies: readonly PolicySpec[];
  cloud?: Omit<SimulatedCloudOptions, 'clock'>;
  logger?: Logger;
  /**
   * Which NodeClaims and Nodes the controllers act on (src/world/cloud/ownership.ts). Default: every
   * one, the simulated cloud adopting them (the embedded cluster, simulations of snapshots).
   * Standalone on a real cluster passes SIMULATED_CLOUD_ONLY: other NodeClaims are left out of
   * every read (owned-cluster.ts); other Nodes get no kubelet, no termination drain and no
   * clean-up of their disrupted taint.
   */
  ownership?: Ownership;
  /**
   * Makes the evaluators: the tick's, and a fresh one per trial evaluation (`evaluateAt`).
   * Default `new Evaluator()`; tests pass one whose evaluation fails (the seam trial-eval.ts uses).
   */
  newEvaluator?: () => Evaluator;
}

export interface TickResult {
  disruption: ReconcileResult;
  expired: string[];
  interrupted: string[];
}

export class Runtime {
  readonly clock: Clock;
  readonly cluster: ClusterClient;
  readonly cloud: SimulatedCloud;
  readonly events: EventLog;
  readonly metrics: MetricsRegistry;
  readonly state = new InFlight();
  readonly evaluator: Evaluator;
  private readonly newEvaluator: () => Evaluator;
  readonly view: ClusterView;
  readonly instanceTypes: ReadonlyMap<string, InstanceType>;
  policies: readonly PolicySpec[];
  /** Snapshot NodeClaims whose instance type or offering the simulated catalog does not know. */
  readonly notAdopted: string[];
  /**
   * Scheduling simulations the disruption methods ran (benchmarks, and tests of the KARPENTER.md#consolidated-cache
   * cache).
   */
  disruptionSimulations = 0;
  private readonly agent: NodeAgent;
  private readonly interruption: InterruptionController;
  private readonly replicaSets: ReplicaSetController | undefined;
  private readonly pdbs: PdbStatusController | undefined;
  private readonly provisioner: Provisioner;
  private readonly disruption: DisruptionController;
  readonly queue: OrchestrationQueue;
  private readonly expiration: ExpirationController;
  private readonly podEvents: PodEventsController;
  readonly termination: TerminationController;

  constructor(o: RuntimeOptions) {
    this.clock = o.clock;
    this.policies = o.policies;
    this.newEvaluator = o.newEvaluator ?? (() => new Evaluator());
    this.evaluator = this.newEvaluator();
    const ownership = o.ownership ?? OWNS_EVERYTHING;
    // Closures below must not name `o`: V8 keeps one context per constructor call, so a closure
    // naming `o` would keep `o.objects` (the whole seed, ~200 MB at 150k pods) alive for good.
    const logger = o.logger;
    // The seed is read once (RuntimeOptions.objects): into the embedded store, or with a cluster
    // given only for its NodeClaims, which are gathered as it is read.
    const seedClaims: NodeClaim[] = [];
    const seed = claimsOf(o.objects, seedClaims);
    const backend = o.cluster ?? new MemoryCluster(o.clock, seed);
    if (o.cluster) for (const x of seed) void x;
    this.cluster =
      ownership === OWNS_EVERYTHING
        ? backend
        : new OwnedNodeClaims(backend, ownership.nodeClaim, (nc) =>
            logger?.warn('ignoring a NodeClaim of another cloud provider', {
              nodeClaim: nc.metadata.name,
              providerID: nc.status?.providerID ?? '',
            }),
          );
    this.cloud = new SimulatedCloud({ clock: o.clock, ...o.cloud });
    this.instanceTypes = new Map(this.cloud.instanceTypes().map((t) => [t.name, t]));
    this.instanceTypeList = [...this.instanceTypes.values()];
    // Machines in a snapshot already run: the simulated cloud takes them over (those it may own).
    const claims = seedClaims.filter((nc) => ownership.nodeClaim(nc));
    this.notAdopted = this.cloud.adopt(claims).map((nc) => nc.metadata.name);
    this.events = new EventLog(o.clock);
    this.metrics = createKarpenterMetrics();
    const log = logger ? (msg: string, fields: Record<string, unknown>) => logger.info(msg, fields) : undefined;
    const taken = seedClaims.map((x) => x.metadata.name);
    const factory = new NodeClaimFactory().skipPast(taken);
    this.interruptionFactory = new NodeClaimFactory('i').skipPast(taken);
    const cluster = this.cluster;
    // The change stamp is the backend's: the filter changes what is read, not when it changes.
    const stamped = hasKindVersions(backend) ? backend : undefined;
    // The in-memory server's watch events carry its per-kind versions: the view follows them
    // event by event (cluster-view.ts); the Kubernetes adapter's view lists on change.
    const owned = this.cluster instanceof OwnedNodeClaims ? this.cluster : undefined;
    this.view = new ClusterView(
      cluster,
      backend instanceof MemoryCluster
        ? { kindVersion: (k) => backend.kindVersion(k), ...(owned && { keeps: (x) => owned.keeps(x) }) }
        : stamped
          ? { changeStamp: () => VIEW_KINDS.map((k) => stamped.kindVersion(k)).join('/') }
          : {},
    );
    this.agent = new NodeAgent({
      client: this.cluster,
      cloud: this.cloud,
      clock: o.clock,
      recorder: this.events,
      ownsNode: ownership.node,
      // The in-memory cluster delivers watch events before a writer resumes (node-agent.ts).
      promptWatches: o.cluster === undefined,
    });
    this.interruption = new InterruptionController({
      client: this.cluster,
      source: this.cloud,
      clock: o.clock,
      recorder: this.events,
    });
    const workload = o.workloadControllers ?? !o.cluster;
    this.replicaSets = workload
      ? new ReplicaSetController(this.cluster, { promptWatches: o.cluster === undefined })
      : undefined;
    this.pdbs = workload
      ? new PdbStatusController(this.cluster, o.clock, { promptWatches: o.cluster === undefined })
      : undefined;
    this.provisioner = new Provisioner(this.cluster, factory, { bind: o.bindPods ?? true });
    this.queue = new OrchestrationQueue({
      client: this.cluster,
      clock: o.clock,
      events: this.events,
      metrics: this.metrics,
      factory: new NodeClaimFactory('r').skipPast(taken),
      state: this.state,
      log,
      ratedPool: (pool) => this.ratedPool(pool),
      policyOf: (pool) => {
        const p = this.policyForPool(pool);
        return {
          ...(p && { policy: p.consolidationPolicy }),
          ...(p?.terminationGracePeriodSeconds !== undefined && { tgpSeconds: p.terminationGracePeriodSeconds }),
        };
      },
    });
    const kindVersion = backend instanceof MemoryCluster ? (k: Kind) => backend.kindVersion(k) : undefined;
    this.podEvents = new PodEventsController(this.cluster, o.clock, kindVersion);
    this.expiration = new ExpirationController(this.cluster, o.clock, this.metrics, log, (a, b) =>
      this.view.changesBetween(a, b),
    );
    this.termination = new TerminationController({
      client: this.cluster,
      cloud: this.cloud,
      recorder: this.events,
      metrics: this.metrics,
      ownsNode: ownership.node,
      podsOn: (node) => this.agent.podsOn(node),
      ...(kindVersion && { kindVersion }),
      tgpSecondsFor: (nc) =>
        this.policyForPool(nc.metadata.labels?.['karpenter.sh/nodepool'] ?? '')?.terminationGracePeriodSeconds,
    });
    this.disruption = new DisruptionController({
      clock: o.clock,
      view: this.view,
      evaluator: this.evaluator,
      policies: () => this.policies,
      instanceTypes: this.instanceTypes,
      events: this.events,
      metrics: this.metrics,
      queue: this.queue,
      state: this.state,
      log,
      ownsNode: ownership.node,
      simulate: (index, candidates, consolidation) => {
        this.disruptionSimulations++;
        return simulateMove(index, candidates, consolidation, this.simulationEnv());
      },
      pass: (index, now) => {
        const pass = this.passFor(index, now);
        return (candidates, consolidation, enough) => {
          this.disruptionSimulations++;
          return pass.simulate(candidates, consolidation, enough);
        };
      },
    });
  }

  /**
   * The policy governing a NodePool (the simulation's, termination's and the queue's question),
   * kept per pool while the NodePools and policies are the same objects; resolved afresh each
   * time when the scans are not incremental (their reference path).
   */
  private policyForPool(pool: string): PolicySpec | undefined {
    if (!this.incrementalScans) return this.resolvePool(pool);
    let g = this.governing;
    if (g?.pools !== this.lastPools || g.policies !== this.policies)
      this.governing = g = { pools: this.lastPools, policies: this.policies, byPool: new Map() };
    if (!g.byPool.has(pool)) g.byPool.set(pool, this.resolvePool(pool));
    return g.byPool.get(pool);
  }

  private resolvePool(pool: string): PolicySpec | undefined {
    const np = this.lastPools.get(pool);
    return np ? resolvePolicies([np], this.policies).byPool.get(pool)?.policy : undefined;
  }

  /** The pool's policy has a rate budget, so kpol keeps its record of disruption starts (disruption-record.ts). */
  private ratedPool(pool: string): boolean {
    const p = this.policyForPool(pool);
    return p !== undefined && hasRateBudgets(p);
  }

  /** policyForPool's answers while the NodePools and policies are the same objects. */
  private governing:
    | {
        pools: ReadonlyMap<string, NodePool>;
        policies: readonly PolicySpec[];
        byPool: Map<string, PolicySpec | undefined>;
      }
    | undefined;

  private lastPools = new Map<string, NodePool>();
  /** The NodePool list lastPools was built from: a new map only when a pool changed. */
  private lastPoolList: readonly NodePool[] | undefined;

  /**
   * The reconcilers' scans read only what changed since their last pass: pod events the dirty
   * nodes' NodeClaims, expiration the changed NodeClaims' due instants, the disruption loop's
   * clean-up the changed machines, termination nothing while no object is deleting, the disruption
   * loop's verdict digest and DisruptionBlocked / Unconsolidatable events the changed verdicts, and
   * the rate-budget check its kept answers per pool. Off: each scans everything, every tick — the
   * reference the equality test (test/reconciler/incremental-scans.test.ts) compares with, and
   * the bench's baseline.
   */
  get incrementalScans(): boolean {
    return this.podEvents.incremental;
  }

  set incrementalScans(on: boolean) {
    this.podEvents.incremental = on;
    this.expiration.incremental = on;
    this.termination.incremental = on;
    this.disruption.incremental = on;
  }

  simulationEnv(): SimulationEnv {
    return {
      now: this.clock.now(),
      instanceTypes: this.instanceTypeList,
      marked: this.state.marked,
      policyFor: (p) => this.policyForPool(p),
    };
  }

  /** The catalog as one list for the life of the runtime (the scheduling cache keys on it). */
  private readonly instanceTypeList: readonly InstanceType[];

  /**
   * Keep what scheduling simulations derive from unchanged objects across indexes and ticks, and
   * share one pass between the provisioner and the disruption methods while nothing changed
   * between them (src/world/scheduling/scheduling-cache.ts). Off: every simulation derives its
   * whole input again — the reference the timeline test compares with, and the bench's baseline.
   */
  incrementalScheduling = true;

  /**
   * The simulated world's controllers (node agent, ReplicaSets, PDB status) read only what changed since their
   * last pass (on the in-memory cluster; their promptWatches option). Off: every pass reads everything —
   * the reference the timeline test compares with, and the bench's baseline.
   */
  get incrementalControllers(): boolean {
    return this.agent.incremental;
  }

  set incrementalControllers(on: boolean) {
    this.agent.incremental = on;
    if (this.replicaSets) this.replicaSets.incremental = on;
    if (this.pdbs) this.pdbs.incremental = on;
  }
  private readonly schedulingCache = new SchedulingCache();
  private lastPass: { key: readonly unknown[]; pass: SimulationPass } | undefined;

  /**
   * The simulation pass over `index` at `now`. Incrementally: the last pass again when its inputs
   * are the same (index, instant, marked machines, policies and pools that decide consolidateAfter).
   */
  private passFor(index: ClusterIndex, now: number): SimulationPass {
    const env = { ...this.simulationEnv(), now };
    if (!this.incrementalScheduling) return new SimulationPass(index, env);
    const key = [index, now, [...this.state.marked].join('\n'), this.policies, this.lastPools];
    const l = this.lastPass;
    if (l !== undefined && l.key.every((k, i) => k === key[i])) return l.pass;
    const pass = new SimulationPass(index, env, this.schedulingCache);
    this.lastPass = { key, pass };
    return pass;
  }

  /**
   * Interruption is forceful (no budgets), but kpol launches the replacement capacity as soon
   * as the notice arrives rather than after the pods are evicted (Karpenter's AWS provider
   * leaves them pending until the provisioner reacts).
   */
  private async prelaunchForInterruptions(index: import('../../core/cluster/state.js').ClusterIndex): Promise<void> {
    for (const p of this.interruption.pendingInterruptions()) {
      this.interruption.acknowledge(p.nodeClaim);
      const sn = index.nodeClaimsByName.get(p.nodeClaim);
      if (!sn) continue;
      const sim = simulateMove(
        index,
        [toCandidate(sn, p.nodePool ?? '', this.instanceTypes)],
        false,
        this.simulationEnv(),
      );
      for (const r of sim.replacements) {
        const pool = index.nodePoolsByName.get(r.nodePool);
        if (pool)
          await this.cluster.create(
            this.interruptionFactory.build(pool, r.instanceTypes.slice(0, 60), [], 'interruption'),
          );
      }
    }
  }

  private readonly interruptionFactory: NodeClaimFactory;

  /**
   * Evaluates `policies` over the current view at `atMs`, as a tick would, with an evaluator of
   * its own so the tick's caches never hold a trial's results (src/core/policy/trial-eval.ts). It is
   * kept across calls: a trial's instants share its compiled rule graphs (4× faster than one
   * evaluator per instant on 5,000 nodes, `npm run bench -- --only eval`).
   */
  async evaluateAt(policies: readonly PolicySpec[], atMs: number): Promise<void> {
    const index = await this.view.current();
    this.trialEvaluator ??= this.newEvaluator();
    await this.trialEvaluator.evaluate(index, policies, atMs);
  }

  private trialEvaluator: Evaluator | undefined;

  /** One pass of every controller. */
  async tick(): Promise<TickResult> {
    const now = this.clock.now();
    await this.agent.reconcile();
    await this.replicaSets?.reconcile();
    await this.pdbs?.reconcile();
    await this.podEvents.reconcile();
    this.view.invalidate();
    let index = await this.view.current();
    if (await reconcileNodePoolHashes(this.cluster, index.snapshot.nodePools)) {
      this.view.invalidate();
      index = await this.view.current();
    }
    const poolList = index.snapshot.nodePools;
    if (poolList !== this.lastPoolList || !this.incrementalScans) {
      this.lastPools = new Map(poolList.map((np) => [np.metadata.name, np]));
      this.lastPoolList = poolList;
    }
    const interrupted = (await this.interruption.reconcile()).deleted;
    await this.prelaunchForInterruptions(index);
    const provisioned = await this.provisioner.reconcile(
      index,
      this.simulationEnv(),
      this.incrementalScheduling
        ? (ix) => {
            const pass = this.passFor(ix, now);
            return { result: pass.schedule([], false), pending: pass.pending() };
          }
        : undefined,
    );
    this.state.nominate(provisioned.nominated, this.clock.now());
    this.view.invalidate();
    index = await this.view.current();
    await recordObservedStarts(this.cluster, index, (pool) => this.ratedPool(pool), now);
    const expired = await this.expiration.reconcile(index, this.policies);
    if (expired.length) this.view.invalidate();
    const disruption = await this.disruption.reconcile();
    await this.queue.reconcile();
    await this.termination.reconcile(now);
    this.view.invalidate();
    return { disruption, expired, interrupted };
  }
}

/** A backend that can say, per kind, whether anything changed (both backends can; a test double may not). */
const hasKindVersions = (c: ClusterClient): c is ClusterClient & { kindVersion(kind: Kind): number | string } =>
  typeof (c as { kindVersion?: unknown }).kindVersion === 'function';

/** `objects` as they are read, with each NodeClaim among them pushed onto `into`. */
function* claimsOf(objects: Iterable<KubeObject>, into: NodeClaim[]): Generator<KubeObject> {
  for (const x of objects) {
    if (x.kind === 'NodeClaim') into.push(x as NodeClaim);
    yield x;
  }
}
