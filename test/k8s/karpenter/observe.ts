// SPDX-License-Identifier: Apache-2.0
// What the Karpenter tests read of the cluster and of Karpenter: the snapshot kpol evaluates
// (as `kubectl get … -o json` prints it, the input `kpol eval --cluster` takes), kpol's answer
// for it, Karpenter's disruption-loop progress on /metrics, and Karpenter's events.
import { kubectlOk } from '../control-plane/kubectl.js';
import { indexCluster } from '../../../src/core/cluster/state.js';
import { loadSnapshot } from '../../../src/core/cluster/snapshot.js';
import { Evaluator } from '../../../src/core/eval/evaluate-cluster.js';
import type { EvalOutput } from '../../../src/core/eval/output.js';
import { scrape, type Sample } from './metrics.js';

/** The kinds `kpol eval` reads, in one `kubectl get`. */
export async function clusterSnapshot(kubeconfigPath: string): Promise<string> {
  return kubectlOk(kubeconfigPath, ['get', 'nodepools,nodeclaims,nodes,pods,pdb', '-A', '-o', 'json']);
}

/**
 * kpol's evaluation of a snapshot at `atMs` with no policy files, so every NodePool is governed
 * by its own spec.disruption — the code path behind `kpol eval --cluster`.
 */
export async function evaluateWithKpol(snapshotText: string, atMs: number): Promise<EvalOutput> {
  const { snapshot, errors } = loadSnapshot(snapshotText, 'cluster');
  if (!snapshot || errors.length)
    throw new Error(`kpol cannot load the snapshot: ${errors.map((e) => `${e.location}: ${e.message}`).join('; ')}`);
  return new Evaluator().evaluate(indexCluster(snapshot), [], atMs);
}

const EVALUATIONS = 'karpenter_voluntary_disruption_decision_evaluation_duration_seconds_count';

/** How many disruption methods have finished so far, per series of the evaluation-duration histogram. */
function evaluationCounts(samples: readonly Sample[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) if (s.name === EVALUATIONS) out.set(JSON.stringify(s.labels), s.value);
  return out;
}

/**
 * Waits until every disruption method has finished at least twice more than in `before` (one
 * scrape), and returns the scrape that shows it. The second run of each method began after
 * `before` was taken, so every gauge a method sets in it describes the cluster as it was then
 * or later. Karpenter's idle loop runs every 10 s; StaticDrift and Drift share one series.
 */
export async function afterTwoDisruptionLoops(
  metricsUrl: string,
  before: readonly Sample[],
  timeoutMs = 60_000,
): Promise<Sample[]> {
  const start = evaluationCounts(before);
  if (start.size === 0) throw new Error(`no ${EVALUATIONS} series yet: has Karpenter's disruption loop run?`);
  const perLoop = (labels: string) => (JSON.parse(labels).reason === 'drifted' ? 2 : 1);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await scrape(metricsUrl);
    const counts = evaluationCounts(now);
    const behind = [...start].filter(([labels, n]) => (counts.get(labels) ?? 0) < n + 2 * perLoop(labels));
    if (behind.length === 0) return now;
    if (Date.now() > deadline)
      throw new Error(
        `Karpenter's disruption loop did not run twice in ${timeoutMs} ms ` +
          `(behind: ${behind.map(([l]) => l).join(', ')})`,
      );
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export interface KubeEvent {
  reason: string;
  message: string;
  kind: string;
  name: string;
  /** lastTimestamp (whole seconds), as ms since the epoch. */
  last: number;
  first: number;
}

/** Every event with one of `reasons`, oldest first. */
export async function eventsWithReason(kubeconfigPath: string, ...reasons: string[]): Promise<KubeEvent[]> {
  const out: KubeEvent[] = [];
  for (const reason of reasons) {
    const items = JSON.parse(
      await kubectlOk(kubeconfigPath, ['get', 'events', '-A', `--field-selector=reason=${reason}`, '-o', 'json']),
    ).items;
    for (const e of items) {
      const last = Date.parse(e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp);
      out.push({
        reason,
        message: e.message,
        kind: e.involvedObject.kind,
        name: e.involvedObject.name,
        last,
        first: Date.parse(e.firstTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp),
      });
    }
  }
  return out.sort((a, b) => a.last - b.last);
}
