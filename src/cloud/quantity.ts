// SPDX-License-Identifier: Apache-2.0
// Kubernetes resource quantities ("500m", "16Gi", "1e3") to numbers and back, enough for the
// simulator: cpu in cores, memory in bytes, counts as integers.

const SUFFIX: Record<string, number> = {
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/;

/** The number a quantity string stands for; undefined when it is not a valid quantity. */
export function parseQuantity(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) ? text : undefined;
  const m = QUANTITY.exec(text.trim());
  if (m === null) return undefined;
  const base = Number(m[1]);
  if (m[2] !== undefined) return base * 10 ** Number(m[2].slice(1));
  return base * SUFFIX[m[3] ?? ''];
}

/**
 * A quantity string as a Node's status prints it: cpu as whole cores or millicores, memory as
 * Ki (bytes rounded down to KiB), anything else as an integer.
 */
export function formatQuantity(resource: string, value: number): string {
  if (resource === 'cpu') return Number.isInteger(value) ? String(value) : `${Math.round(value * 1000)}m`;
  if (resource === 'memory' || resource === 'ephemeral-storage') return `${Math.floor(value / 1024)}Ki`;
  return String(Math.floor(value));
}

/** formatQuantity over a resource list. */
export function formatResources(resources: Readonly<Record<string, number>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(resources)) out[k] = formatQuantity(k, v);
  return out;
}
