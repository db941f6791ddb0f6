#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// The `kpol` executable: loads the TypeScript sources through tsx so a clean clone works
// after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2));
