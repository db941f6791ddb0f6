// SPDX-License-Identifier: Apache-2.0
// `node --import ./load-trace.mjs …` appends the URL of every module the process loads through
// the ES module loader (one a line) to the file named by $KPOL_LOAD_TRACE: how tests see which
// chunks of the build a command loads. The same file registers itself (main thread) and is the
// hooks module (the loader's thread).
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) register(import.meta.url);

export async function load(url, context, nextLoad) {
  if (process.env.KPOL_LOAD_TRACE) appendFileSync(process.env.KPOL_LOAD_TRACE, `${url}\n`);
  return nextLoad(url, context);
}
