// SPDX-License-Identifier: Apache-2.0
// Whether any object of some kinds changed since a controller's last pass, from watches: a
// controller whose output depends only on those objects skips a pass that would read the same
// objects again (a quiet 150,000-pod cluster is then not re-read every tick).
import type { ClusterClient, Kind } from '../../core/cluster/client.js';

export class ChangeFlag {
  private changed = true;
  private readonly watches: { stop(): void }[];

  constructor(client: ClusterClient, kinds: readonly Kind[]) {
    this.watches = kinds.map((kind) =>
      client.watch(kind, () => {
        this.changed = true;
      }),
    );
  }

  /**
   * Runs `pass` when something changed since the last completed pass (always the first time);
   * a pass that throws is retried next time. The pass's own writes count as changes, so the
   * pass after a writing one runs too and confirms the fixpoint.
   */
  async ifChanged(pass: () => Promise<void>, force = false): Promise<void> {
    if (!this.changed && !force) return;
    this.changed = false;
    try {
      await pass();
    } catch (e) {
      this.changed = true;
      throw e;
    }
  }

  stop(): void {
    for (const w of this.watches) w.stop();
  }
}
