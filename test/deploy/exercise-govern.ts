// SPDX-License-Identifier: Apache-2.0
// Drives govern mode as `kpol run --in-cluster --mode govern` runs it (src/edge/cli/commands/run-govern.ts:
// the Governor ticking on the leader, ClusterServices for policies, events and the Lease) next to a
// stand-in for Karpenter's objects, and returns the API requests it made: a NodePool governed
// (budgets and the renewed deny budget), nodes held by a maintenance window and a pod window and
// released when they end, an expired NodeClaim deleted gracefully, a broken and a fixed policy
// ConfigMap, the pool handed back when no policy governs it, and the Lease held and released.
// Karpenter itself is not simulated: govern mode only writes its controls.
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { ConfigMap, KubeObject, Node, NodePool } from '../../src/core/cluster/types.js';
import { FakeClock } from '../../src/core/clock.js';
import { Governor } from '../../src/control/govern/governor.js';
import { ANNOTATION_HOLD } from '../../src/control/govern/node-holds.js';
import { ANNOTATION_GOVERNED_BY } from '../../src/control/govern/nodepool-apply.js';
import { mirrorEventsToCluster } from '../../src/core/observe/cluster-events.js';
import { createLogger } from '../../src/core/observe/logger.js';
import { VIEW_KINDS } from '../../src/control/reconciler/cluster-view.js';
import { ClusterServices } from '../../src/control/runtime/cluster-services.js';
import { makeNodeClaimAndNode, makeNodePool, makePdb, makePod } from '../support/cluster-builder.js';
import { RecordingClient, type ApiRequest } from './api-inventory.js';
import { NAMESPACE } from './exercise.js';

const T0 = Date.parse('2026-08-21T10:00:00Z'); // a Friday, inside the 09:00–17:00 UTC window below

const POLICY = `policy p for nodepool default {
  consolidate when empty or underutilized after 5m
  expire after 720h gracefully
  budget 1 for Expired
  budget 2
  pods where app = "batch" disruptable only during "0 2 * * sat" for 6h
  window zone-a blocks Underutilized on nodes where topology.kubernetes.io/zone in (us-west-2a) during "0 9 * \
* 1-5" for 8h
}
`;

export interface GovernExercise {
  requests: ApiRequest[];
  /** What the exercise saw happen, so a test can tell it went through each kind of work. */
  saw: { governed: boolean; held: boolean; released: boolean; expired: boolean; restored: boolean };
}

export async function exerciseGovernor(): Promise<GovernExercise> {
  const clock = new FakeClock(T0);
  const objects: KubeObject[] = [
    makeNodePool('default', { budgets: [{ nodes: '10%' }], consolidationPolicy: 'WhenEmpty', consolidateAfter: '30s' }),
  ];
  for (let i = 0; i < 3; i++) {
    // Node 2 is 50 days old: expired under `expire after 720h gracefully`.
    const { nodeClaim, node } = makeNodeClaimAndNode('default', i, {
      zone: i === 0 ? 'us-west-2a' : 'us-west-2b',
      ...(i === 2 && { createdAt: '2026-07-01T00:00:00Z' }),
    });
    objects.push(
      nodeClaim,
      node,
      makePod(`pod-${i}`, node.metadata.name, {
        labels: { app: i === 1 ? 'batch' : 'web' },
        startTime: '2026-08-21T00:00:00Z',
      }),
    );
  }
  objects.push(makePdb('web', { matchLabels: { app: 'web' } }, { disruptionsAllowed: 1 }));
  const cm: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kpol-policies', namespace: NAMESPACE, labels: { 'kpol.dev/policy': 'true' } },
    data: { 'p.kpol': POLICY },
  };
  objects.push(cm);
  const raw = new MemoryCluster(clock, objects);
  const rec = new RecordingClient(raw);
  const logger = createLogger({ clock, sink: () => {} });

  // As run-govern.ts: the Governor is the services' host; ClusterServices.start() mirrors its
  // events and loads the policies (the elector is stepped here instead of run in the background).
  await rec.list('NodePool'); // run-govern's check that the CRDs are there
  const governor = new Governor({ client: rec, clock, logger, failClosedAfterMs: 120_000, dryRun: false });
  const services = new ClusterServices(governor, {
    client: rec,
    clock,
    namespace: NAMESPACE,
    leaderElection: { name: 'kpol-controller', identity: 'kpol-0' },
    logger,
  });
  const stopEvents = mirrorEventsToCluster(governor.events, { client: rec, clock, instance: 'kpol-0' });
  await services.policies.start();
  rec.informers(VIEW_KINDS); // as run-govern.ts: client.start(VIEW_KINDS)
  services.markInformersSynced();

  const tick = async (ms = 10_000) => {
    await services.elector!.step();
    if (services.shouldAct()) await governor.tick();
    await raw.idle();
    await services.policies.settled();
    clock.advance(ms);
  };
  const pool = async () => (await raw.get<NodePool>({ kind: 'NodePool', name: 'default' }))!;
  const nodes = async () => raw.list<Node>('Node');
  const saw = { governed: false, held: false, released: false, expired: false, restored: false };

  for (let i = 0; i < 3; i++) await tick();
  saw.governed = (await pool()).metadata.annotations?.[ANNOTATION_GOVERNED_BY] === 'p';
  saw.held = (await nodes()).some((n) => n.metadata.annotations?.[ANNOTATION_HOLD] !== undefined);
  saw.expired = (await raw.list<KubeObject>('NodeClaim')).some((nc) => nc.metadata.deletionTimestamp !== undefined);
  // Past a renewal (more than half of --fail-closed-after), and past the maintenance window's end.
  for (let i = 0; i < 4; i++) await tick(30_000);
  clock.advance(Date.parse('2026-08-21T17:05:00Z') - clock.now());
  for (let i = 0; i < 2; i++) await tick();
  const held = (await nodes()).filter((n) => n.metadata.annotations?.[ANNOTATION_HOLD] !== undefined);
  saw.released = saw.held && held.length < 2;
  // A broken policy push, then a fix (renewing first: only the leader reports on the ConfigMap).
  await services.elector!.step();
  const cur = (await raw.get<ConfigMap>({ kind: 'ConfigMap', name: 'kpol-policies', namespace: NAMESPACE }))!;
  await raw.update({ ...cur, data: { 'p.kpol': 'policy p for nodepool default {\n  budget 1 for Drifed\n}\n' } });
  await tick();
  await services.elector!.step();
  const broken = (await raw.get<ConfigMap>({ kind: 'ConfigMap', name: 'kpol-policies', namespace: NAMESPACE }))!;
  await raw.update({ ...broken, data: { 'p.kpol': POLICY } });
  await tick();
  // No policy governs the pool any more: kpol hands it back.
  await services.elector!.step();
  const fixed = (await raw.get<ConfigMap>({ kind: 'ConfigMap', name: 'kpol-policies', namespace: NAMESPACE }))!;
  await raw.update({ ...fixed, data: { 'p.kpol': POLICY.replace('nodepool default', 'nodepool other') } });
  for (let i = 0; i < 2; i++) await tick();
  saw.restored = (await pool()).metadata.annotations?.[ANNOTATION_GOVERNED_BY] === undefined;
  await services.stop();
  stopEvents();
  return { requests: [...rec.requests.values()], saw };
}
