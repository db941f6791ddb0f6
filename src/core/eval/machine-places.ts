// SPDX-License-Identifier: Apache-2.0
// Where the machines the in-flight state names are among an evaluation's rows. A change of the
// reconciler's state (a command starting or ending, a nomination) names a few providerIDs and
// node names; an evaluation of only the changed nodes must derive those machines again, and
// finding them by a walk over 5,000 rows with a string lookup each cost more than deriving them.
// The rows by providerID and by name are kept here across evaluations, moved by the rows that
// changed, came or went, and a row's place is found by name: an index keeps its Nodes in name
// order, then its NodeClaims without a Node in name order. Two rows with one providerID or name,
// or a place not where the order says, and the answer is undefined: the caller walks the rows.
import type { NodeRow } from './prepared-nodes.js';

export class MachinePlaces {
  private readonly byId = new Map<string, NodeRow>();
  private readonly byName = new Map<string, NodeRow>();
  /** Some providerID or name belongs to two rows: no answer until made again from all rows. */
  private ambiguous = false;

  /** Made from every row of an index. */
  constructor(rows: readonly NodeRow[]) {
    for (const row of rows) this.add(row);
  }

  /** Moves the lookups from the last index's rows to this one's: `gone` rows (gone or replaced), then `came`. */
  move(gone: Iterable<NodeRow>, came: Iterable<NodeRow>): void {
    for (const row of gone) {
      if (row.id !== undefined && this.byId.get(row.id) === row) this.byId.delete(row.id);
      if (this.byName.get(row.name) === row) this.byName.delete(row.name);
    }
    for (const row of came) this.add(row);
  }

  private add(row: NodeRow): void {
    if (row.id !== undefined) {
      if (this.byId.has(row.id)) this.ambiguous = true;
      this.byId.set(row.id, row);
    }
    if (this.byName.has(row.name)) this.ambiguous = true;
    this.byName.set(row.name, row);
  }

  /**
   * The places in `rows` (whose first `joined` rows have a Node) of the rows with one of `ids` or
   * `names`, in no particular order; undefined when they cannot be told by lookup.
   */
  placesOf(
    rows: readonly NodeRow[],
    joined: number,
    ids: Iterable<string>,
    names: Iterable<string>,
  ): number[] | undefined {
    if (this.ambiguous) return undefined;
    const out: number[] = [];
    const find = (row: NodeRow | undefined): boolean => {
      if (row === undefined) return true;
      const at =
        row.sn.node !== undefined ? search(rows, 0, joined, row.name) : search(rows, joined, rows.length, row.name);
      if (rows[at] !== row) return false;
      out.push(at);
      return true;
    };
    for (const id of ids) if (!find(this.byId.get(id))) return undefined;
    for (const name of names) if (!find(this.byName.get(name))) return undefined;
    return out;
  }
}

/** The first place in [lo, hi) of `rows` whose name is not before `name`. */
function search(rows: readonly NodeRow[], lo: number, hi: number, name: string): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid].name < name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
