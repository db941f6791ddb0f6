// SPDX-License-Identifier: Apache-2.0
// CONTRACT STUB — implemented by the time/windows work. Signatures are fixed.

/** Parses a kpol duration literal (`30s`, `5m`, `1h30m`, `720h`, `7d`) to seconds; undefined if invalid. */
export function parseKpolDuration(text: string): number | undefined {
  throw new Error(`not implemented: ${text}`);
}

/** Parses a Go `time.ParseDuration` string (`1.5h`, `300ms`, `-5m`) to seconds (may be fractional or negative). */
export function parseGoDuration(text: string): number | undefined {
  throw new Error(`not implemented: ${text}`);
}

/** Formats seconds the way Karpenter manifests write them: `1h30m`, `720h`, `90s` → `1m30s`, 0 → `0s`. */
export function formatDuration(seconds: number): string {
  throw new Error(`not implemented: ${seconds}`);
}

/** Karpenter's CRD patterns (reference §1.1), evaluated like Go RE2 would. */
export const KARPENTER_PATTERNS: Record<'durNever' | 'nodes' | 'schedule' | 'budgetDuration' | 'tgp', RegExp> = {} as never;
