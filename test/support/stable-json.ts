// SPDX-License-Identifier: Apache-2.0
// JSON with sorted keys and without source ranges, for golden files that must not change
// when only positions or key order do.

export function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      if (key === 'source') continue;
      out[key] = stable((value as Record<string, unknown>)[key]);
    }
    return out;
  }
  return value;
}

export const stableJson = (value: unknown): string => `${JSON.stringify(stable(value), null, 2)}\n`;
