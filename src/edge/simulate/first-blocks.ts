// SPDX-License-Identifier: Apache-2.0
// How many nodes of an evaluation are blocked first by each code, for the timeline's blocked
// counts. An evaluation made from the last one by a few changed, new or gone verdicts
// (src/core/eval/verdict-record.ts differenceOf) gets its counts from the last ones by those
// names alone; any other record is counted node by node. At 5,000 nodes, counting every node on
// every busy tick cost more than the evaluation that changed a few of them.
import { differenceOf } from '../../core/eval/verdict-record.js';
import type { EvalOutput } from '../../core/eval/output.js';

type Verdicts = EvalOutput['nodes'];

/** Nodes whose first block has a code, and the first such node's message in evaluation order. */
export interface FirstBlock {
  count: number;
  message: string;
}

export class FirstBlocks {
  private nodes: Verdicts | undefined;
  private byCode = new Map<string, FirstBlock>();

  /**
   * The counts per code of `nodes`, in the order a walk over them meets each code first. A code
   * that `known` says the caller has met before may come later in that order and with another
   * node's message when followed through a change: the caller reads a known code's count only.
   * A code it has not met makes a walk over every node, so its order and message are exact.
   */
  of(nodes: Verdicts, known: (code: string) => boolean): ReadonlyMap<string, FirstBlock> {
    if (nodes === this.nodes) return this.byCode;
    const was = this.nodes;
    const changed = was && differenceOf(nodes, was);
    if (changed === undefined || !this.follow(was!, nodes, changed, known)) this.byCode = countAll(nodes);
    this.nodes = nodes;
    return this.byCode;
  }

  /** Moves the counts by the names whose verdicts changed, came or went; false when only a walk will do. */
  private follow(
    from: Verdicts,
    nodes: Verdicts,
    changed: readonly string[],
    known: (code: string) => boolean,
  ): boolean {
    for (const name of changed) {
      const was = from[name]?.blocked[0];
      const now = nodes[name]?.blocked[0];
      if (was?.code === now?.code) continue;
      if (was !== undefined) {
        const entry = this.byCode.get(was.code);
        if (entry === undefined) return false;
        if (--entry.count === 0) this.byCode.delete(was.code);
      }
      if (now !== undefined) {
        const entry = this.byCode.get(now.code);
        if (entry) entry.count++;
        else if (known(now.code)) this.byCode.set(now.code, { count: 1, message: now.message });
        else return false;
      }
    }
    return true;
  }
}

function countAll(nodes: Verdicts): Map<string, FirstBlock> {
  const out = new Map<string, FirstBlock>();
  for (const n of Object.values(nodes)) {
    const b = n.blocked[0];
    if (!b) continue;
    const seen = out.get(b.code);
    if (seen) seen.count++;
    else out.set(b.code, { count: 1, message: b.message });
  }
  return out;
}
