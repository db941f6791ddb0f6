// SPDX-License-Identifier: Apache-2.0
// Node-rule runs per distinct combination of facts. Most nodes of a pool share their prepared
// facts (the same pool, labels the rules read, pod protections…) and differ at an instant only
// in a few INSTANT_FACTS, so a combination is named by two small numbers: the prepared node's
// decision key, interned once per prepared node, and the INSTANT_FACTS as bits. Within one
// evaluation of one policy (its window facts fixed), the rule graph's answer for a combination is
// the answer for every node that has it; the graph still decides, this only remembers its answer.
import type { FiredEvent, GraphEngine } from '../../../rules/engine.js';
import type { NodeDetails } from '../../../rules/facts.js';
import type { NodeResult } from './output.js';
import { INSTANT_FACTS, type InstantFacts, type NodeFactDeriver, type PreparedNode } from '../facts/node-facts.js';

/** INSTANT_FACTS all false: the prepared node's decision key then varies only with what was prepared. */
const NEUTRAL = Object.fromEntries(INSTANT_FACTS.map((k) => [k, false])) as unknown as InstantFacts;

/** The INSTANT_FACTS as bits, in their list's order. */
export function instantBits(facts: InstantFacts): number {
  let bits = 0;
  for (let i = 0; i < INSTANT_FACTS.length; i++) if (facts[INSTANT_FACTS[i]]) bits |= 1 << i;
  return bits;
}

const BITS = 2 ** INSTANT_FACTS.length;

/**
 * A prepared node with what this module remembers of it (kept beside it by prepared-nodes.ts for
 * one policy, so for one engine; plain fields, not WeakMaps: 5,000 ephemerons cost the GC).
 */
export interface Memoised {
  prepared: PreparedNode;
  /** The id of its decision key. */
  decision?: number;
  /** Its details key for an answer (without timed pods). */
  details?: { events: readonly FiredEvent[]; key: string };
}

/** Decision keys of prepared nodes for one engine, interned to numbers kept across evaluations. */
export class DecisionKeys {
  private readonly ids = new Map<string, number>();
  /** Never reused, so an id kept by a prepared node still names its key after the intern table is cleared. */
  private next = 0;

  /** The `{name}`s each answer's messages fill from a node's details. */
  private readonly placeholders = new WeakMap<readonly FiredEvent[], string[]>();

  constructor(private readonly engine: GraphEngine) {}

  /** The id of the prepared node's decision key: equal ids, equal facts for equal INSTANT_FACTS and windows. */
  idOf(node: Memoised, deriver: NodeFactDeriver): number {
    let id = node.decision;
    if (id === undefined) {
      const key = this.engine.nodeKey(deriver.factsOf(node.prepared, NEUTRAL, {}));
      id = this.ids.get(key);
      if (id === undefined) {
        if (this.ids.size > 50_000) this.ids.clear();
        this.ids.set(key, (id = this.next++));
      }
      node.decision = id;
    }
    return id;
  }

  /**
   * What of a node's details its result can read, as a key: its pool (the result names it) and
   * each detail that a message of the fired events names (`{pod}`, `{consolidatableAt}`, …),
   * absent or its text, as format() fills them. Without timed pods the details come from the
   * prepared node alone, so the key is made once per prepared node and answer.
   */
  detailsKey(node: Memoised, events: readonly FiredEvent[], details: NodeDetails): string {
    if (node.prepared.timedPods.length > 0) return this.makeDetailsKey(events, details);
    const kept = node.details;
    if (kept?.events === events) return kept.key;
    const key = this.makeDetailsKey(events, details);
    node.details = { events, key };
    return key;
  }

  private makeDetailsKey(events: readonly FiredEvent[], details: NodeDetails): string {
    let names = this.placeholders.get(events);
    if (names === undefined) {
      // Any `{word}` in the events' text: a message's placeholders, and at worst a longer key.
      const found = JSON.stringify(events).matchAll(/\{(\w+)\}/g);
      this.placeholders.set(events, (names = [...new Set([...found].map((m) => m[1]))]));
    }
    const named = details as unknown as Record<string, string>;
    return JSON.stringify([details.nodePool, ...names.map((k) => (k in named ? String(named[k]) : null))]);
  }
}

/**
 * One evaluation's node-rule answers and node results for one policy, per combination. An
 * evaluation of only the changed nodes (evaluate-cluster.ts) carries them on from the last one:
 * its window facts are the same, and no answer reads the instant otherwise.
 */
export class Combinations {
  private readonly answers: Map<number, readonly FiredEvent[]>;
  private readonly results: Map<number, Map<string, NodeResult>>;

  constructor(
    private readonly keys: DecisionKeys,
    private readonly engine: GraphEngine,
    private readonly deriver: NodeFactDeriver,
    /** The policy's window facts at this instant (fixed for the evaluation). */
    private readonly windows: Record<string, boolean>,
    /** The last evaluation's, made with the same window facts, whose answers and results are shared. */
    from?: Combinations,
  ) {
    this.answers = from?.answers ?? new Map();
    this.results = from?.results ?? new Map();
  }

  /** How many answers are kept (a carried-on set is dropped when it grows large). */
  get size(): number {
    return this.answers.size;
  }

  /** The key of the node's combination. */
  key(node: Memoised, now: InstantFacts): number {
    return this.keys.idOf(node, this.deriver) * BITS + instantBits(now);
  }

  detailsKey(node: Memoised, events: readonly FiredEvent[], details: NodeDetails): string {
    return this.keys.detailsKey(node, events, details);
  }

  /** The result of a node of this combination with these details, when one was made. */
  result(key: number, detailsKey: string): NodeResult | undefined {
    return this.results.get(key)?.get(detailsKey);
  }

  keep(key: number, detailsKey: string, result: NodeResult): void {
    let byDetails = this.results.get(key);
    if (!byDetails) this.results.set(key, (byDetails = new Map()));
    byDetails.set(detailsKey, result);
  }

  known(key: number): readonly FiredEvent[] | undefined {
    return this.answers.get(key);
  }

  /** Runs the rule graph over the node's whole fact set and keeps the answer for its combination. */
  async answer(key: number, prep: PreparedNode, now: InstantFacts): Promise<readonly FiredEvent[]> {
    const events = await this.engine.runNode(this.deriver.factsOf(prep, now, this.windows));
    this.answers.set(key, events);
    return events;
  }
}
