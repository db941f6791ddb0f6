// SPDX-License-Identifier: Apache-2.0
// The real Karpenter works here end to end: a NodePool and a Deployment pinned to it make
// Karpenter launch a NodeClaim, its KWOK provider registers the Node, KWOK keeps it Ready and
// runs the pods, and Karpenter reports the pool's allowed disruptions on /metrics.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../control-plane/eventually.js';
import { kubectl, kubectlOk } from '../control-plane/kubectl.js';
import { sharedKarpenter } from './inject.js';
import { deployment, namespace, nodePool, toYaml } from './manifests.js';
import { ALLOWED_DISRUPTIONS, allowedDisruptions, scrape } from './metrics.js';

const k = sharedKarpenter();
const id = randomBytes(3).toString('hex');
const ns = `kpol-ksmoke-${id}`;
const pool = `smoke-${id}`;

interface Item {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { nodeName?: string; providerID?: string };
  status?: { phase?: string; conditions?: { type: string; status: string }[] };
}

async function list(kind: string, ...args: string[]): Promise<Item[]> {
  return JSON.parse(await kubectlOk(k.kubeconfigPath, ['get', kind, '-o', 'json', ...args])).items;
}

const isTrue = (o: Item, type: string) =>
  o.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

describe('the real Karpenter with KWOK', () => {
  afterAll(async () => {
    await kubectl(k.kubeconfigPath, ['delete', 'namespace', ns, '--ignore-not-found', '--wait=false']);
    await kubectl(k.kubeconfigPath, ['delete', 'nodepool', pool, '--ignore-not-found', '--wait=false']);
    // The pool's NodeClaims go with it (owner reference); wait so the next file starts on an empty cluster.
    await eventually(
      "the smoke pool's NodeClaims to be gone",
      async () => ((await list('nodeclaims', '-l', `karpenter.sh/nodepool=${pool}`)).length === 0 ? true : undefined),
      90_000,
    );
  });

  it("launches nodes for pending pods and runs them, and reports the pool's allowed disruptions", async () => {
    await kubectlOk(
      k.kubeconfigPath,
      ['apply', '-f', '-'],
      toYaml([
        namespace(ns),
        // Default budgets (10%); consolidation on, so the Underutilized method sees the node.
        nodePool(pool, { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '0s' }),
        deployment({ namespace: ns, name: 'web', pool, replicas: 3 }),
      ]),
    );

    const claims = await eventually(
      'a Launched, Registered and Initialized NodeClaim',
      async () => {
        const items = await list('nodeclaims', '-l', `karpenter.sh/nodepool=${pool}`);
        return items.length > 0 && items.every((c) => isTrue(c, 'Initialized')) ? items : undefined;
      },
      120_000,
    );
    for (const c of claims) expect(isTrue(c, 'Launched') && isTrue(c, 'Registered')).toBe(true);

    const nodes = await list('nodes', '-l', `karpenter.sh/nodepool=${pool}`);
    expect(nodes.map((n) => n.spec?.providerID)).toEqual(claims.map(() => expect.stringMatching(/^kwok:\/\//)));
    expect(nodes.every((n) => isTrue(n, 'Ready'))).toBe(true);

    const pods = await eventually(
      "3 Running pods on the pool's nodes",
      async () => {
        const items = await list('pods', '-n', ns);
        return items.length === 3 && items.every((p) => p.status?.phase === 'Running') ? items : undefined;
      },
      120_000,
    );
    const nodeNames = new Set(nodes.map((n) => n.metadata.name));
    for (const p of pods) expect(nodeNames.has(p.spec?.nodeName ?? '')).toBe(true);

    // Karpenter sets the gauge when a disruption loop (every 10 s when idle) has a candidate
    // for one of a reason's methods: here consolidation (reason Underutilized) sees this node.
    const allowed = await eventually(
      `${ALLOWED_DISRUPTIONS} for ${pool}`,
      async () => (await allowedDisruptions(k.karpenterMetricsUrl)).get(pool),
      60_000,
    );
    // 10% of the initialized nodes, rounded up.
    expect(allowed.get('Underutilized')).toBe(Math.ceil(nodes.length / 10));
    const raw = (await scrape(k.karpenterMetricsUrl)).filter(
      (s) => s.name === ALLOWED_DISRUPTIONS && s.labels.nodepool === pool,
    );
    expect(raw.map((s) => Object.keys(s.labels).sort())).toContainEqual(['nodepool', 'reason']);
  });
});
