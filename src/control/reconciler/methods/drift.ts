// SPDX-License-Identifier: Apache-2.0
// Drift (KARPENTER.md#drift): drifted nodes replaced one at a time, the longest drifted first.
import { oneAtATime } from './one-at-a-time.js';

export const drift = oneAtATime(
  'Drift',
  'Drifted',
  'Drifted',
  'A drifted node no longer matches its NodePool; it is replaced whatever the price, one per loop, oldest drift first.',
);
