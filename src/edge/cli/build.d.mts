// SPDX-License-Identifier: Apache-2.0
// Types of build.mjs, for the TypeScript that imports it (tests, the bench).
/** Each module built (relative to outDir) with the files bundled into it, and the package files the stamp records. */
export function buildCli(o?: {
  root?: string;
  outDir?: string;
}): Promise<{ modules: Record<string, string[]>; inputs: string[] }>;
