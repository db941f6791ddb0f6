// SPDX-License-Identifier: Apache-2.0
// Property: whatever the input, every placement the simulation makes still satisfies every
// predicate when re-checked against the final contents of its node or NodeClaim, and no node
// or NodeClaim is asked for more than it has.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/core/cluster/types.js';
import { compatibleInstanceTypes } from '../../src/world/scheduling/instance-types.js';
import {
  nodeLocalFit,
  resourcesFit,
  taintsTolerated,
  nodeRequirementsFit,
  requestedOn,
  type PlacementTarget,
} from '../../src/world/scheduling/predicates.js';
import { requirementsOf } from '../../src/core/cluster/requirements.js';
import { insufficientResource } from '../../src/core/cluster/resources.js';
import { simulateScheduling, type SchedulingInput, type SimNode } from '../../src/world/scheduling/simulate.js';
import { topologyFit, topologyView } from '../../src/world/scheduling/topology.js';
import { DEFAULT_POOL, pod, simNode, TYPES, ZONES } from './builders.js';

const HOST = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';
const TAINT = { key: 'dedicated', value: 'x', effect: 'NoSchedule' };

// Every pod a constraint selects carries that same constraint, so skew stays bounded for all.
const CONSTRAINTS: Record<string, Record<string, unknown>> = {
  host: {
    affinity: {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { topologyKey: HOST, labelSelector: { matchLabels: { app: 'host' } } },
        ],
      },
    },
  },
  zoneAnti: {
    affinity: {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { topologyKey: ZONE, labelSelector: { matchLabels: { app: 'zoneAnti' } } },
        ],
      },
    },
  },
  spread: {
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: ZONE,
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { app: 'spread' } },
      },
    ],
  },
  plain: {},
};

const podArb = fc.record({
  app: fc.constantFrom('host', 'zoneAnti', 'spread', 'plain'),
  cpuMilli: fc.integer({ min: 50, max: 5000 }),
  memMi: fc.integer({ min: 64, max: 20000 }),
  tolerates: fc.boolean(),
  zone: fc.option(fc.constantFrom(...ZONES), { nil: undefined }),
});

const nodeArb = fc.record({
  cpu: fc.integer({ min: 1, max: 8 }),
  memGi: fc.integer({ min: 1, max: 32 }),
  zone: fc.constantFrom(...ZONES),
  tainted: fc.boolean(),
  blocked: fc.boolean(),
});

const inputArb = fc.record({
  pods: fc.array(podArb, { maxLength: 14 }),
  nodes: fc.array(nodeArb, { maxLength: 5 }),
  poolTainted: fc.boolean(),
  consolidation: fc.boolean(),
});

type RawInput = typeof inputArb extends fc.Arbitrary<infer T> ? T : never;

function build(raw: RawInput): SchedulingInput {
  const pods = raw.pods.map((p, i) =>
    pod(`p${i}`, {
      cpu: `${p.cpuMilli}m`,
      memory: `${p.memMi}Mi`,
      labels: { app: p.app },
      ...(p.tolerates && { tolerations: [{ key: 'dedicated', operator: 'Exists' as const }] }),
      // Only unconstrained pods may pin a zone: a pinned pod's narrower domain set could skew others.
      ...(p.app === 'plain' && p.zone && { nodeSelector: { [ZONE]: p.zone } }),
      ...CONSTRAINTS[p.app],
    }),
  );
  const nodes: SimNode[] = raw.nodes.map((n, i) =>
    simNode(`n${i}`, {
      cpu: String(n.cpu),
      memory: `${n.memGi}Gi`,
      zone: n.zone,
      consolidateAfterBlocked: n.blocked,
      ...(n.tainted && { taints: [TAINT] }),
    }),
  );
  const pool = { ...DEFAULT_POOL, taints: raw.poolTainted ? [TAINT] : [] };
  return { pods, nodes, nodePools: [pool], instanceTypes: TYPES, consolidation: raw.consolidation };
}

describe('simulateScheduling properties', () => {
  it('every placement re-checks against the final contents, and nothing is over-committed', () => {
    fc.assert(
      fc.property(inputArb, (raw) => {
        const input = build(raw);
        const r = simulateScheduling(input);

        // Every pod is either placed or has an error, never both.
        for (const p of input.pods) expect(r.placements.has(p) !== r.errors.has(p)).toBe(true);

        const nodeTargets: PlacementTarget[] = input.nodes.map((n) => ({
          name: n.name,
          labels: n.labels,
          taints: n.taints,
          allocatable: n.allocatable,
          pods: [
            ...n.pods,
            ...input.pods.filter((p) => {
              const w = r.placements.get(p);
              return w !== undefined && 'node' in w && w.node === n.name;
            }),
          ],
        }));
        const claimTargets: PlacementTarget[] = r.newNodeClaims.map((c, i) => {
          const reqs = requirementsOf(c.requirements);
          const labels: Record<string, string> = { [HOST]: `hostname-placeholder-${i}` };
          for (const s of c.requirements)
            if (s.operator === 'In' && s.values?.length === 1) labels[s.key] = s.values[0];
          return {
            name: `claim-${i}`,
            labels,
            taints: input.nodePools[0].taints,
            allocatable: {},
            pods: c.pods,
            requirements: reqs,
          };
        });
        const view = topologyView([...nodeTargets, ...claimTargets], {
          launchableZones: ZONES,
          newHostnamePossible: true,
        });
        const without = (t: PlacementTarget, p: Pod): PlacementTarget => ({
          ...t,
          pods: t.pods.filter((q) => q !== p),
          requested: undefined,
        });

        for (const [i, t] of nodeTargets.entries()) {
          expect(insufficientResource(requestedOn(t), t.allocatable)).toBeUndefined();
          for (const p of t.pods) {
            if (input.nodes[i].pods.includes(p)) continue;
            expect(nodeLocalFit(p, without(t, p))).toBeUndefined();
            expect(topologyFit(p, without(t, p), view)).toBeUndefined();
            if (input.consolidation) expect(input.nodes[i].consolidateAfterBlocked).toBe(false);
          }
        }
        for (const [i, c] of r.newNodeClaims.entries()) {
          const t = claimTargets[i];
          expect(c.pods.length).toBeGreaterThan(0);
          expect(c.instanceTypes.length).toBeGreaterThan(0);
          // Every listed type takes all the claim's pods and meets its requirements.
          expect(compatibleInstanceTypes(c.instanceTypes, t.requirements!, requestedOn(t))).toHaveLength(
            c.instanceTypes.length,
          );
          for (const p of c.pods) {
            expect(r.placements.get(p)).toEqual({ newNodeClaim: i });
            expect(taintsTolerated(p, t.taints)).toBeUndefined();
            expect(nodeRequirementsFit(p, t)).toBeUndefined();
            for (const it of c.instanceTypes)
              expect(resourcesFit(p, { ...without(t, p), allocatable: it.capacity })).toBeUndefined();
            expect(topologyFit(p, without(t, p), view)).toBeUndefined();
          }
        }
      }),
      { numRuns: 300, seed: 20260820 },
    );
  });

  it('is deterministic: the same input gives the same placements, claims and errors', () => {
    fc.assert(
      fc.property(inputArb, (raw) => {
        const shape = (input: SchedulingInput) => {
          const r = simulateScheduling(input);
          return {
            pods: input.pods.map((p) => r.placements.get(p) ?? r.errors.get(p)),
            claims: r.newNodeClaims.map((c) => [
              c.requirements,
              c.instanceTypes.map((t) => t.name),
              c.pods.map((p) => p.metadata.name),
            ]),
          };
        };
        expect(shape(build(raw))).toEqual(shape(build(raw)));
      }),
      { numRuns: 100, seed: 7 },
    );
  });
});
