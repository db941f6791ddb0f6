// SPDX-License-Identifier: Apache-2.0
// `node --import ./test/bench/ts-loader.mjs file.ts`: runs kpol's TypeScript as the shipped build
// compiles it (esbuild, src/edge/cli/build.mjs), for the bench's timings. tsx, which runs the
// tests and the CLI from source, compiles with esbuild's keepNames, which wraps every function
// made at run time in a call that sets its name: ~15% of the every-node evaluation's CPU, a
// cost the build does not have. Resolution is Node's, plus what tsx adds that kpol uses: a
// `.js` import of a file that is `.ts` on disk.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
process.env.KPOL_BENCH_COMPILED = 'build';
