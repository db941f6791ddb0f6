// SPDX-License-Identifier: Apache-2.0
// Preloaded (`node --import`) into a process the bench measures: at exit, writes the process's
// peak RSS in KiB to the file KPOL_BENCH_RSS_OUT names, whatever the exit code.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const out = process.env.KPOL_BENCH_RSS_OUT;
  if (out) writeFileSync(out, String(process.resourceUsage().maxRSS));
});
