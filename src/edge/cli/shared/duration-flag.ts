// SPDX-License-Identifier: Apache-2.0
// Duration-valued flags of `kpol run` (simulated cloud timings, leader election): Go duration
// syntax, as client-go's flags and Karpenter's manifests write them (`500ms`, `15s`, `1m30s`),
// plus a bare number meaning seconds.
import { parseGoDuration } from '../../../../rules/duration.js';
import { CliError } from './io.js';

export function durationFlagMs(text: string, flag: string, example: string): number {
  const seconds = /^\d+(\.\d+)?$/.test(text) ? Number(text) : parseGoDuration(text);
  if (seconds === undefined || seconds < 0)
    throw new CliError(`--${flag} takes a duration such as ${example}, not \`${text}\``);
  return seconds * 1000;
}
