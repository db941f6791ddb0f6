// SPDX-License-Identifier: Apache-2.0
// antiAffinityFits looks only at the targets and holders in the target's domains (an index
// kept per view version) instead of scanning them all. Over random views — hosts and zones,
// targets without a hostname label, a hostname shared by two targets, several terms and keys,
// holders moved to a new target and views changed between checks — it answers exactly what
// a scan of every target and every holder answers, message included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesLabelSelector } from '../../src/core/cluster/labels.js';
import { ownValue } from '../../src/core/cluster/own-keys.js';
import { parseResourceList } from '../../src/core/cluster/resources.js';
import { LABEL_HOSTNAME, type Pod } from '../../src/core/cluster/types.js';
import { namespaceOf, requiredPodAntiAffinity, termNamespaces } from '../../src/world/scheduling/pod-spec.js';
import type { PlacementTarget } from '../../src/world/scheduling/predicates.js';
import { antiAffinityFits, type TopologyView } from '../../src/world/scheduling/topology.js';
import { pod } from './builders.js';

const ZONE = 'topology.kubernetes.io/zone';
const RACK = 'example.com/rack';
const KEYS = [LABEL_HOSTNAME, ZONE, RACK];
const APPS = ['web', 'db', 'cache'];

/** The check as a scan of everything (the definition the index must agree with). */
function scan(p: Pod, target: PlacementTarget, view: TopologyView): string | undefined {
  const same = (a: PlacementTarget, b: PlacementTarget, key: string) =>
    a === b || (ownValue(a.labels, key) !== undefined && ownValue(a.labels, key) === ownValue(b.labels, key));
  const matches = (owner: Pod, term: ReturnType<typeof requiredPodAntiAffinity>[number], other: Pod) => {
    const ns = termNamespaces(owner, term);
    return (!ns || ns.has(namespaceOf(other))) && matchesLabelSelector(other.metadata.labels, term.labelSelector);
  };
  const name = (x: Pod) => `${namespaceOf(x)}/${x.metadata.name}`;
  for (const term of requiredPodAntiAffinity(p)) {
    const domain = ownValue(target.labels, term.topologyKey);
    if (domain === undefined && term.topologyKey !== LABEL_HOSTNAME) continue;
    for (const other of view.targets) {
      if (!same(other, target, term.topologyKey)) continue;
      const hit = other.pods.find((x) => x !== p && matches(p, term, x));
      if (hit) return `pod anti-affinity: ${name(hit)} already in ${term.topologyKey}=${domain ?? target.name}`;
    }
  }
  for (const { pod: holder, target: where } of view.antiAffinityHolders) {
    if (holder === p) continue;
    for (const term of requiredPodAntiAffinity(holder)) {
      if (same(where, target, term.topologyKey) && matches(holder, term, p)) {
        const domain = ownValue(target.labels, term.topologyKey) ?? target.name;
        return `pod anti-affinity of ${name(holder)} in ${term.topologyKey}=${domain}`;
      }
    }
  }
  return undefined;
}

const podArb = fc.record({
  app: fc.constantFrom(...APPS),
  terms: fc.array(fc.record({ key: fc.constantFrom(...KEYS), app: fc.constantFrom(...APPS) }), { maxLength: 2 }),
});
const targetArb = fc.record({
  host: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }), // a shared or absent hostname too
  zone: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
  rack: fc.option(fc.constantFrom('r1', 'r2', 'r3'), { nil: undefined }),
  pods: fc.array(podArb, { maxLength: 3 }),
});

describe('antiAffinityFits with its domain index', () => {
  it('answers as a scan of every target and holder, also after the view changes', () => {
    fc.assert(
      fc.property(
        fc.array(targetArb, { minLength: 1, maxLength: 8 }),
        fc.array(fc.record({ pod: podArb, at: fc.nat(), newTarget: fc.boolean() }), { minLength: 1, maxLength: 6 }),
        (specs, checks) => {
          let n = 0;
          const mk = (s: { app: string; terms: { key: string; app: string }[] }) =>
            pod(`p${n++}`, {
              labels: { app: s.app },
              affinity: s.terms.length
                ? {
                    podAntiAffinity: {
                      requiredDuringSchedulingIgnoredDuringExecution: s.terms.map((t) => ({
                        topologyKey: t.key,
                        labelSelector: { matchLabels: { app: t.app } },
                      })),
                    },
                  }
                : undefined,
            });
          const toTarget = (t: (typeof specs)[number], i: number): PlacementTarget => {
            const labels: Record<string, string> = {};
            if (t.host !== undefined) labels[LABEL_HOSTNAME] = `h${t.host}`;
            if (t.zone !== undefined) labels[ZONE] = t.zone;
            if (t.rack !== undefined) labels[RACK] = t.rack;
            return {
              name: `t${i}`,
              labels,
              taints: [],
              allocatable: parseResourceList({ cpu: '8' }),
              pods: t.pods.map(mk),
            };
          };
          const targets = specs.map(toTarget);
          const holders = targets.flatMap((target) =>
            target.pods.filter((x) => requiredPodAntiAffinity(x).length > 0).map((x) => ({ pod: x, target })),
          );
          const view: TopologyView = { targets, antiAffinityHolders: holders, version: 0 };
          for (const c of checks) {
            const p = mk(c.pod);
            const target = c.newTarget
              ? toTarget({ host: undefined, zone: 'a', rack: 'r1', pods: [] }, 99)
              : targets[c.at % targets.length]!;
            for (const t of targets) expect(antiAffinityFits(p, t, view)).toBe(scan(p, t, view));
            expect(antiAffinityFits(p, target, view)).toBe(scan(p, target, view));
            // Place it, as the simulation does: on a new target (a planned NodeClaim) or an existing one.
            if (c.newTarget) targets.push(target);
            (target.pods as Pod[]).push(p);
            if (requiredPodAntiAffinity(p).length > 0) holders.push({ pod: p, target });
            view.version! += 1;
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
