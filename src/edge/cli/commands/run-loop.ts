// SPDX-License-Identifier: Apache-2.0
// The controller loop `kpol run` drives on either backend: one tick a second, each decision
// logged as one JSON line, until SIGINT/SIGTERM or `--for` seconds.
import type { Logger } from '../../../core/observe/logger.js';
import type { Runtime, TickResult } from '../../../control/runtime/runtime.js';
import type { RuntimeStatus } from '../../../control/runtime/status.js';

/** On a shared cluster: tick only while allowed (the leader), report each tick, stop on demand. */
export interface LoopHooks {
  shouldAct(): boolean;
  afterTick(r: TickResult): Promise<void>;
  /** The tick completed (readiness, and ConfigMaps reported failing turn valid again). */
  tickSucceeded?(): Promise<void>;
  /** The tick threw: counted for readiness and traced to the policy that cannot be evaluated. */
  tickFailed?(error: unknown): Promise<unknown>;
  /** Set by the loop: ends it as SIGTERM would (e.g. leadership lost). */
  stop?: () => void;
}

export async function runLoop(
  rt: Runtime,
  status: RuntimeStatus,
  logger: Logger,
  forSeconds: number | undefined,
  hooks?: LoopHooks,
): Promise<void> {
  let stopping = false;
  const done = new Promise<void>((resolve) => {
    const stop = () => {
      stopping = true;
      resolve();
    };
    if (hooks) hooks.stop = stop;
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (forSeconds !== undefined) setTimeout(stop, forSeconds * 1000).unref();
  });
  const loop = (async () => {
    while (!stopping) {
      try {
        if (hooks && !hooks.shouldAct()) {
          await new Promise((res) => setTimeout(res, 1000));
          continue;
        }
        const r = await rt.tick();
        await hooks?.tickSucceeded?.();
        status.record(r);
        await hooks?.afterTick(r);
        const c = r.disruption.started;
        if (c)
          logger.info('disruption decision', {
            method: c.method,
            reason: c.reason,
            decision: c.replacements.length ? 'replace' : 'delete',
            nodes: c.candidates.map((x) => x.node),
            replacements: c.replacements.map((x) => x.instanceTypes[0]),
          });
        for (const n of r.expired)
          logger.info('disruption decision', {
            method: 'Expiration',
            reason: 'Expired',
            decision: 'delete',
            nodeClaims: [n],
          });
        for (const n of r.interrupted)
          logger.info('disruption decision', {
            method: 'Interruption',
            reason: 'Interrupted',
            decision: 'delete',
            nodeClaims: [n],
          });
      } catch (e) {
        // A real API server can refuse a write or drop a connection mid-tick; the next tick
        // starts again from cluster state, as a controller-runtime reconciler would requeue.
        // A tick that throws decided nothing: no command started, so nothing is disrupted on it.
        logger.error('tick failed', { error: (e as Error).message ?? String(e) });
        await hooks
          ?.tickFailed?.(e)
          .catch((err: unknown) => logger.error('could not report the failed tick', { error: String(err) }));
      }
      await new Promise((res) => setTimeout(res, 1000));
    }
  })();
  await done;
  await loop;
}
