// SPDX-License-Identifier: Apache-2.0
// kpol agrees with the real Karpenter (issue done-when 5). On NodePools no kpol policy governs,
// kpol's allowed disruptions per pool and reason must equal Karpenter's own
// `karpenter_nodepools_allowed_disruptions` at the same instant, over the budget
// configurations of ./budget-cases.ts; and kpol's candidates and why-not per node must match
// what Karpenter reports for the same nodes (its eligible-node gauge, its DisruptionBlocked and
// Unconsolidatable events); the differences that remain are listed in KNOWN_DIFFERENCES. kpol
// reads the cluster the way `kpol eval --cluster` does: a `kubectl get … -o json` snapshot,
// evaluated in-process with no policy files.
//
// One cluster state serves every test: 24 budget pools (33 nodes, consolidation off, so
// Karpenter never acts on them) and a "sentinel" pool with a zero budget whose 7 nodes give
// each disruption method a candidate — Karpenter only computes (and publishes) a reason's
// budgets in a loop where one of that reason's methods has a candidate — and carry the
// why-not states: a do-not-disrupt pod ("true" and a duration), a do-not-disrupt node, a
// PodDisruptionBudget that allows nothing, an empty node, a drifted node.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../control-plane/eventually.js';
import { kubectl, kubectlOk } from '../control-plane/kubectl.js';
import type { EvalOutput } from '../../../src/core/eval/output.js';
import { REASONS, UNLIMITED, budgetCases, type Reason } from './budget-cases.js';
import { sharedKarpenter } from './inject.js';
import { deployment, namespace, nodePool, toYaml } from './manifests.js';
import { ALLOWED_DISRUPTIONS, byPoolAndReason, scrape, type Sample } from './metrics.js';
import {
  afterTwoDisruptionLoops,
  clusterSnapshot,
  evaluateWithKpol,
  eventsWithReason,
  type KubeEvent,
} from './observe.js';

const k = sharedKarpenter();
const id = randomBytes(3).toString('hex');
const ns = `kpol-agree-${id}`;
const mark = { 'kpol.dev/agreement': id };
const cases = budgetCases(new Date());
const poolName = (slug: string) => `a${id}-${slug}`;
const SENTINEL = poolName('sentinel');
const budgetPools = new Map(cases.map((c) => [poolName(c.slug), c]));

/** The sentinel pool's nodes, one pod each, and what kpol and Karpenter should both see on them. */
const ROLES = {
  plain: { candidate: ['Underutilized'], blockedBy: undefined },
  empty: { candidate: ['Empty'], blockedBy: undefined },
  drifted: { candidate: ['Drifted', 'Underutilized'], blockedBy: undefined },
  dndpod: { candidate: [], blockedBy: 'DoNotDisruptPod' },
  dndfor: { candidate: [], blockedBy: 'DoNotDisruptPod' },
  dndnode: { candidate: [], blockedBy: 'DoNotDisruptNode' },
  pdb: { candidate: [], blockedBy: 'PDBBlocked' },
} as const;
type Role = keyof typeof ROLES;
const roles = Object.keys(ROLES) as Role[];

// kpol's block codes by the event Karpenter reports them with: candidate construction
// (DisruptionBlocked) or a method's filter (Unconsolidatable). Codes missing from both have no
// Karpenter event (already queued, unmanaged, consolidateAfter pending) or are kpol's own (pod windows).
const DISRUPTION_BLOCKED = new Set([
  'NotInitialized',
  'Deleting',
  'Nominated',
  'DoNotDisruptNode',
  'MissingNodePoolLabel',
  'NodePoolNotFound',
  'DoNotDisruptPod',
  'PDBBlocked',
  'MultiplePDBs',
]);
const UNCONSOLIDATABLE = new Set([
  'ConsolidationDisabled',
  'InstanceTypeNotFound',
  'MissingCapacityType',
  'MissingZone',
  'ConsolidationPolicyWhenEmpty',
]);

/**
 * Where kpol and Karpenter v1.15.0 differ, and why. The tests below assert the observable
 * ones as they are, so a change on either side shows up here.
 */
export const KNOWN_DIFFERENCES = {
  // Karpenter keeps a node out of disruption for max(2 × BATCH_MAX_DURATION, 10 s) after a
  // provisioning pass meant it for a pending pod ("Node is nominated for a pending pod"). That
  // state lives in Karpenter's memory only: `kpol eval` on a snapshot cannot see it (kpol's
  // controller tracks the nominations of its own provisioning). The tests let it lapse before
  // they compare.
  nominated: 'not in a snapshot',
  // v1.15's CRD accepts budget reason `Unhealthy` (node repair, behind the NodeRepair gate);
  // kpol reports it as unsupported on the pool. The numbers agree: both skip such a budget for
  // Empty, Drifted and Underutilized.
  unhealthyReason: 'kpol reports a problem',
  // Read in v1.15.0's candidate checks, not exercised here (KWOK nodes initialize, and deleted
  // ones disappear, within a second): v1.15 checks "node is deleting or marked for deletion"
  // before "node isn't initialized" (kpol, after the v1.14 order: initialized first), says
  // "node isn't initialized nor registered" for an unregistered node, and has a "node is
  // rebooting" check kpol does not know.
  candidateOrder: 'not exercised',
} as const;

const NOMINATION_MS = 10_000;

const sentence = (s: string) => s[0].toUpperCase() + s.slice(1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

interface Item {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { nodeName?: string };
  status?: {
    phase?: string;
    nodeName?: string;
    observedGeneration?: number;
    conditions?: { type: string; status: string }[];
  };
}

async function list(kind: string, ...args: string[]): Promise<Item[]> {
  return JSON.parse(await kubectlOk(k.kubeconfigPath, ['get', kind, '-o', 'json', ...args])).items;
}

const isTrue = (o: Item, type: string) =>
  o.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

/** Set by beforeAll: the sentinel's node per role, and when the why-not states were applied. */
const sentinelNode = new Map<Role, string>();
let statesSetAt = 0;

function manifests(): object[] {
  const off = { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: 'Never' };
  const docs: object[] = [namespace(ns)];
  for (const c of cases) {
    docs.push(nodePool(poolName(c.slug), c.budgets === undefined ? off : { ...off, budgets: c.budgets }, mark));
    if (c.nodes > 0)
      docs.push(
        deployment({
          namespace: ns,
          name: `b-${c.slug}`,
          pool: poolName(c.slug),
          replicas: c.nodes,
          spread: `b-${c.slug}`,
        }),
      );
  }
  docs.push(
    nodePool(
      SENTINEL,
      { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '0s', budgets: [{ nodes: '0' }] },
      mark,
    ),
  );
  for (const role of roles)
    docs.push(deployment({ namespace: ns, name: `s-${role}`, pool: SENTINEL, replicas: 1, spread: 'sentinel' }));
  return docs;
}

const totalNodes = cases.reduce((n, c) => n + c.nodes, 0) + roles.length;

describe('kpol agrees with the real Karpenter', () => {
  beforeAll(async () => {
    expect(totalNodes).toBeLessThanOrEqual(40);
    await kubectlOk(k.kubeconfigPath, ['apply', '-f', '-'], toYaml(manifests()));
    await eventually(
      `${totalNodes} initialized NodeClaims`,
      async () => {
        const claims = await list('nodeclaims', '-l', `kpol.dev/agreement=${id}`);
        return claims.length === totalNodes && claims.every((c) => isTrue(c, 'Initialized')) ? true : undefined;
      },
      180_000,
    );
    const pods = await eventually(
      `${totalNodes} Running pods`,
      async () => {
        const items = await list('pods', '-n', ns);
        return items.length === totalNodes && items.every((p) => p.status?.phase === 'Running') ? items : undefined;
      },
      120_000,
    );
    for (const role of roles)
      sentinelNode.set(role, pods.find((p) => p.metadata.labels?.app === `s-${role}`)!.spec!.nodeName!);
    // While pods were pending, each provisioning pass nominated the nodes it meant for them,
    // for 10 s (see KNOWN_DIFFERENCES); no pod is pending now, so let the last ones lapse.
    await sleep(NOMINATION_MS + 2_000);
    const claimOf = new Map(
      (await list('nodeclaims', '-l', `karpenter.sh/nodepool=${SENTINEL}`)).map((c) => [
        c.status?.nodeName,
        c.metadata.name,
      ]),
    );

    // The why-not states, all at once after the nodes are up, so Karpenter's events about them
    // come after `statesSetAt` (events have whole-second timestamps).
    statesSetAt = Math.floor(Date.now() / 1000) * 1000;
    const kc = k.kubeconfigPath;
    await Promise.all([
      kubectlOk(kc, ['annotate', 'node', sentinelNode.get('dndnode')!, 'karpenter.sh/do-not-disrupt=true']),
      kubectlOk(kc, ['annotate', 'pod', '-n', ns, '-l', 'app=s-dndpod', 'karpenter.sh/do-not-disrupt=true']),
      // A duration counts from the pod's start (Karpenter ≥ 1.12): blocked for the next hour.
      kubectlOk(kc, ['annotate', 'pod', '-n', ns, '-l', 'app=s-dndfor', 'karpenter.sh/do-not-disrupt=1h']),
      kubectlOk(
        kc,
        ['apply', '-f', '-'],
        toYaml([
          {
            apiVersion: 'policy/v1',
            kind: 'PodDisruptionBudget',
            metadata: { name: 's-pdb', namespace: ns },
            spec: { maxUnavailable: 0, selector: { matchLabels: { app: 's-pdb' } } },
          },
        ]),
      ),
      kubectlOk(kc, ['scale', 'deployment', '-n', ns, 's-empty', '--replicas=0']),
      // Another hash than its NodePool's: Karpenter's drift check marks the NodeClaim Drifted.
      kubectlOk(kc, [
        'annotate',
        'nodeclaim',
        claimOf.get(sentinelNode.get('drifted'))!,
        '--overwrite',
        'karpenter.sh/nodepool-hash=1',
      ]),
    ]);
    await eventually(
      'the why-not states in place',
      async () => {
        const [pods, pdbs, claims] = await Promise.all([
          list('pods', '-n', ns, '-l', 'app=s-empty'),
          list('pdb', '-n', ns),
          list('nodeclaims', '-l', `karpenter.sh/nodepool=${SENTINEL}`),
        ]);
        const pdbObserved = pdbs.some((p) => p.metadata.name === 's-pdb' && (p.status?.observedGeneration ?? 0) >= 1);
        return pods.length === 0 && pdbObserved && claims.some((c) => isTrue(c, 'Drifted')) ? true : undefined;
      },
      60_000,
    );
  });

  afterAll(async () => {
    // Pods first: a do-not-disrupt pod or the PDB would hold up the nodes' drain.
    await kubectl(k.kubeconfigPath, ['delete', 'namespace', ns, '--ignore-not-found', '--timeout=90s']);
    await kubectl(k.kubeconfigPath, [
      'delete',
      'nodepools',
      '-l',
      `kpol.dev/agreement=${id}`,
      '--ignore-not-found',
      '--wait=false',
    ]);
    await eventually(
      "the test's NodeClaims to be gone",
      async () => ((await list('nodeclaims', '-l', `kpol.dev/agreement=${id}`)).length === 0 ? true : undefined),
      120_000,
    );
  });

  it(
    `allowed disruptions per pool and reason equal Karpenter's ${ALLOWED_DISRUPTIONS} at the ` +
      `same instant (${cases.length + 1} pools)`,
    async () => {
      const { metrics, kpol, at } = await sameInstant();
      const allowed = byPoolAndReason(metrics, ALLOWED_DISRUPTIONS);
      const consuming = byPoolAndReason(metrics, 'karpenter_nodepools_nodes_consuming_budgets');
      const rows: string[] = [];
      const wrongFixture: string[] = [];
      for (const pool of [...budgetPools.keys(), SENTINEL]) {
        const expectedNodes = budgetPools.get(pool)?.nodes ?? roles.length; // the sentinel's empty node counts too
        expect(kpol.nodePools[pool]?.nodes, `kpol's node count of ${pool}`).toBe(expectedNodes);
        for (const reason of REASONS) {
          const theirs = allowed.get(pool)?.get(reason);
          const ours = kpol.nodePools[pool].budgets[reason];
          const oursAsKarpenter = ours === null ? UNLIMITED : ours;
          if (theirs !== oursAsKarpenter)
            rows.push(`${pool} ${reason}: Karpenter ${theirs ?? 'missing'}, kpol ${ours}`);
          const disrupting = consuming.get(pool)?.get(reason);
          if (disrupting !== kpol.nodePools[pool].disrupting)
            rows.push(
              `${pool} ${reason}: consuming budget Karpenter ${disrupting ?? 'missing'}, ` +
                `kpol ${kpol.nodePools[pool].disrupting}`,
            );
          const expected = budgetPools.get(pool)?.expected[reason] ?? 0;
          if (theirs !== expected)
            wrongFixture.push(`${pool} ${reason}: Karpenter ${theirs}, the case expects ${expected}`);
        }
      }
      expect(rows, `kpol vs Karpenter at ${new Date(at).toISOString()}`).toEqual([]);
      // Problems kpol reports on a NodePool's own spec: the two that fail it closed on both
      // sides, and the `Unhealthy` reason (KNOWN_DIFFERENCES.unhealthyReason).
      const problems = Object.entries(kpol.nodePools)
        .filter(([name, p]) => name.startsWith(`a${id}-`) && p.errors.length > 0)
        .map(([name]) => name)
        .sort();
      expect(problems).toEqual([poolName('dow7'), poolName('sixfields'), poolName('unhealthy')].sort());
      expect(kpol.nodePools[poolName('unhealthy')].errors.join('\n')).toMatch(/unsupported value "Unhealthy"/);
      // Each case shows what it is named for (a window really open, a percentage really rounded).
      expect(wrongFixture).toEqual([]);
    },
  );

  it("candidates per reason equal Karpenter's eligible nodes", async () => {
    const { metrics, kpol } = await sameInstant();
    const eligible = new Map(
      metrics
        .filter((s) => s.name === 'karpenter_voluntary_disruption_eligible_nodes')
        .map((s) => [s.labels.reason, s.value]),
    );
    const ours = (reason: Reason) => Object.values(kpol.nodes).filter((n) => n.reasons.includes(reason)).length;
    expect(Object.fromEntries(REASONS.map((r) => [r, eligible.get(r.toLowerCase())]))).toEqual(
      Object.fromEntries(REASONS.map((r) => [r, ours(r)])),
    );
    for (const role of roles) {
      expect(kpol.nodes[sentinelNode.get(role)!].reasons, `kpol's reasons for the sentinel's ${role} node`).toEqual(
        ROLES[role].candidate,
      );
    }
  });

  it("why-not per node equals Karpenter's DisruptionBlocked events", async () => {
    // Karpenter publishes one DisruptionBlocked event per Node per 2 minutes, whatever the
    // message: an event from before the states were set delays the next one.
    const before = (await eventsWithReason(k.kubeconfigPath, 'DisruptionBlocked')).filter(
      (e) => e.kind === 'Node' && e.last < statesSetAt,
    );
    const nodes = new Set(sentinelNode.values());
    const quietAt = Math.max(statesSetAt, ...before.filter((e) => nodes.has(e.name)).map((e) => e.last + 121_000));
    await sleep(quietAt + 12_000 - Date.now());
    const kpol = await evaluateWithKpol(await clusterSnapshot(k.kubeconfigPath), Date.now());
    const expectEvent = roles.filter((r) => ROLES[r].blockedBy !== undefined).map((r) => sentinelNode.get(r)!);
    const events = await eventually(
      'a DisruptionBlocked event on each blocked sentinel node',
      async () => {
        const evs = (await eventsWithReason(k.kubeconfigPath, 'DisruptionBlocked')).filter(
          (e) => e.kind === 'Node' && e.last >= statesSetAt,
        );
        return expectEvent.every((n) => evs.some((e) => e.name === n)) ? evs : undefined;
      },
      40_000,
    );
    const latest = (node: string): KubeEvent | undefined => events.filter((e) => e.name === node).at(-1);
    const ours: Record<string, string | undefined> = {};
    const theirs: Record<string, string | undefined> = {};
    for (const role of roles) {
      const node = sentinelNode.get(role)!;
      const first = kpol.nodes[node].blocked.find((b) => DISRUPTION_BLOCKED.has(b.code));
      expect(first?.code, `kpol's first block on the ${role} node`).toBe(ROLES[role].blockedBy);
      ours[role] = first && sentence(first.message);
      theirs[role] = latest(node)?.message;
    }
    expect(ours).toEqual(theirs);
  });

  it("consolidation-disabled nodes: kpol's why-not equals Karpenter's Unconsolidatable events", async () => {
    const kpol = await evaluateWithKpol(await clusterSnapshot(k.kubeconfigPath), Date.now());
    const budgetNodes = Object.entries(kpol.nodes)
      .filter(([, n]) => budgetPools.has(n.nodePool))
      .map(([name]) => name);
    expect(budgetNodes.length).toBe(totalNodes - roles.length);
    // Karpenter reports one Unconsolidatable per node per 15 minutes: the first is the one.
    const events = await eventually(
      'an Unconsolidatable event on every budget-pool node',
      async () => {
        const evs = (await eventsWithReason(k.kubeconfigPath, 'Unconsolidatable')).filter((e) => e.kind === 'Node');
        return budgetNodes.every((n) => evs.some((e) => e.name === n)) ? evs : undefined;
      },
      40_000,
    );
    const ours: Record<string, string | undefined> = {};
    const theirs: Record<string, string | undefined> = {};
    for (const node of budgetNodes) {
      ours[node] = kpol.nodes[node].blocked.find((b) => UNCONSOLIDATABLE.has(b.code))?.message;
      theirs[node] = events.find((e) => e.name === node)?.message;
    }
    expect(ours).toEqual(theirs);
  });
});

interface Agreed {
  metrics: Sample[];
  kpol: EvalOutput;
  at: number;
}

let agreed: Promise<Agreed> | undefined;

/**
 * One instant both sides describe: a snapshot, a scrape, two full disruption loops, a second
 * scrape and a second snapshot. Taken when the gauges did not move between the scrapes, kpol's
 * verdicts did not change between the snapshots, and each reason had a candidate (so its
 * budgets were computed in those loops, not left over from an earlier state). Memoised: the
 * tests compare different parts of the same instant.
 */
function sameInstant(): Promise<Agreed> {
  agreed ??= (async () => {
    const tries: string[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      const s1 = await clusterSnapshot(k.kubeconfigPath);
      const m1 = await scrape(k.karpenterMetricsUrl);
      const m2 = await afterTwoDisruptionLoops(k.karpenterMetricsUrl, m1);
      const at = Date.now();
      const s2 = await clusterSnapshot(k.kubeconfigPath);
      const [k1, k2] = [await evaluateWithKpol(s1, at), await evaluateWithKpol(s2, at)];
      const eligible = m2.filter((s) => s.name === 'karpenter_voluntary_disruption_eligible_nodes');
      const why = [
        gauges(m1) !== gauges(m2) && 'the gauges moved between the scrapes',
        verdicts(k1) !== verdicts(k2) && 'the cluster changed between the snapshots',
        !REASONS.every((r) => eligible.some((s) => s.labels.reason === r.toLowerCase() && s.value > 0)) &&
          'a reason had no candidate',
      ].filter(Boolean);
      if (why.length === 0) return { metrics: m2, kpol: k2, at };
      tries.push(`attempt ${attempt}: ${why.join(', ')}`);
    }
    throw new Error(`no steady instant:\n${tries.join('\n')}`);
  })();
  return agreed;
}

const OURS =
  /^karpenter_(nodepools_allowed_disruptions|nodepools_nodes_consuming_budgets|voluntary_disruption_eligible_nodes)$/;

function gauges(samples: readonly Sample[]): string {
  return JSON.stringify(
    samples
      .filter((s) => OURS.test(s.name))
      .map((s) => [s.name, s.labels, s.value])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  );
}

function verdicts(out: EvalOutput): string {
  const pools = Object.entries(out.nodePools).map(([name, p]) => [name, p.nodes, p.disrupting]);
  const nodes = Object.entries(out.nodes).map(([name, n]) => [name, n.reasons, n.blocked.map((b) => b.code)]);
  return JSON.stringify([pools, nodes]);
}
