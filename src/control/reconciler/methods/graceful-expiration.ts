// SPDX-License-Identifier: Apache-2.0
// kpol's graceful expiration (`expire after D gracefully`): expired nodes replaced like drifted
// ones, within the Expired budget, the oldest node first. Karpenter's own expiration is forceful
// (KARPENTER.md#expiration) and lives in src/control/reconciler/expiration.ts.
import { oneAtATime } from './one-at-a-time.js';

export const gracefulExpiration = oneAtATime(
  'Expiration',
  'Expired',
  '',
  'Stateful pools ask expired nodes to leave like drifted ones: budgeted, replacement first, never forced.',
);
