// SPDX-License-Identifier: Apache-2.0
// Node-rule runs per distinct combination of facts. Most nodes of a pool share their prepared
// facts (the same pool, labels the rules read, pod protections…) and differ at an instant only
// in a few INSTANT_FACTS, so a combination is named by two small numbers: the prepared node's
// decision key, interned once per prepared node, and the INSTANT_FACTS as bits. Within one
// evaluation of one policy (its window facts fixed), the rule graph's answer for a combination is
// the answer for every node that has it; the graph still decides, this only remembers its answer.
import type { FiredEvent, GraphEngine } from '../../../rules/engine.js';
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

/** Decision keys of prepared nodes for one engine, interned to numbers kept across evaluations. */
export class DecisionKeys {
  private readonly ids = new Map<string, number>();
  private readonly byPrepared = new WeakMap<PreparedNode, number>();
  /** Never reused, so an id kept by a prepared node still names its key after the intern table is cleared. */
  private next = 0;

  constructor(private readonly engine: GraphEngine) {}

  /** The id of the prepared node's decision key: equal ids, equal facts for equal INSTANT_FACTS and windows. */
  idOf(prep: PreparedNode, deriver: NodeFactDeriver): number {
    let id = this.byPrepared.get(prep);
    if (id === undefined) {
      const key = this.engine.nodeKey(deriver.factsOf(prep, NEUTRAL, {}));
      id = this.ids.get(key);
      if (id === undefined) {
        if (this.ids.size > 50_000) this.ids.clear();
        this.ids.set(key, (id = this.next++));
      }
      this.byPrepared.set(prep, id);
    }
    return id;
  }
}

/** One evaluation's node-rule answers for one policy, per combination. */
export class Combinations {
  private readonly answers = new Map<number, readonly FiredEvent[]>();

  constructor(
    private readonly keys: DecisionKeys,
    private readonly engine: GraphEngine,
    private readonly deriver: NodeFactDeriver,
    /** The policy's window facts at this instant (fixed for the evaluation). */
    private readonly windows: Record<string, boolean>,
  ) {}

  /** The key of the node's combination, or undefined when its answer is not known yet. */
  key(prep: PreparedNode, now: InstantFacts): number {
    return this.keys.idOf(prep, this.deriver) * BITS + instantBits(now);
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
