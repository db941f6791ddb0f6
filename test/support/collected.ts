// SPDX-License-Identifier: Apache-2.0
// Whether an object was let go: for tests that something (a record, a seed) is not kept alive.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Whether `ref`'s target is gone after a full collection. Waits for the current job to end
 * first: a WeakRef's target lives until the job that made or read it ends.
 */
export async function collected(ref: WeakRef<object>): Promise<boolean> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  await new Promise((resolve) => setTimeout(resolve, 0));
  gc();
  return ref.deref() === undefined;
}
