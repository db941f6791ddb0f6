// SPDX-License-Identifier: Apache-2.0
// CONTRACT STUB — implemented by the time/windows work. Signatures are fixed.

export type CronError = { ok: false; kind: 'fieldCount' | 'dow7' | 'descriptor' | 'field'; error: string; found?: number };
export type CronOk = { ok: true; normalized: string };

/** Validates a schedule in robfig/cron's standard dialect exactly as Karpenter's ParseStandard does. */
export function validateCron(expr: string): CronOk | CronError {
  throw new Error(`not implemented: ${expr}`);
}
