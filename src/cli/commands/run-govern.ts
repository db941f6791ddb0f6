// SPDX-License-Identifier: Apache-2.0
// `kpol run --mode govern`: kpol next to a real Karpenter, writing only NodePool budgets and node
// annotations. A stub until govern mode lands: run.ts already dispatches here.
import { CliError, type Output } from '../io.js';
import type { ClusterRunOptions } from './run-cluster.js';

export interface GovernRunOptions extends ClusterRunOptions {
  /** Decide and log, write nothing. */
  dryRun: boolean;
  /** --fail-closed-after, in ms (whole minutes, at least one). */
  failClosedAfterMs: number;
}

export async function runGoverned(_o: GovernRunOptions, _io: Output): Promise<number> {
  throw new CliError('govern mode is not built yet');
}
