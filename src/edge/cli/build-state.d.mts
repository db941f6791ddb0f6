// SPDX-License-Identifier: Apache-2.0
// Types of build-state.mjs, for the TypeScript that imports it (tests).
export const PACKAGE_ROOT: URL;
export const BUILD_DIR: URL;
export const STAMP_FORMAT: number;
export interface InputRecord {
  size: number;
  mtimeMs: number;
  sha256: string;
}
export function sha256(bytes: Uint8Array): string;
export function inputRecord(bytes: Uint8Array, mtimeMs: number): InputRecord;
export type BuildState = { fresh: true; entry: URL } | { fresh: false; reason: string };
export function buildState(root?: URL, buildDir?: URL): BuildState;
