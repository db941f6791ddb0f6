// SPDX-License-Identifier: Apache-2.0
// Messages between the page and the kpol web worker. Each request carries a sequence number;
// the page drops answers older than the newest it has applied.
import type { Diagnostic } from '../../grammar/diagnostic.js';
import type { KubeObject } from '../../src/core/cluster/types.js';
import type { PolicySource } from '../../src/core/policy/load.js';
import type { Preview } from './analysis.js';

/** The connected cluster as /api/editor/cluster returns it. */
export interface ClusterData {
  now: number; // the controller's clock, epoch ms
  objects: KubeObject[];
  files: PolicySource[]; // read-only policy files the controller also applies
}

/** The edited document: its text and the PolicySource name it replaces. */
export interface EditedDoc {
  fileName: string;
  text: string;
  /** Other editable sources the controller applies now (the ConfigMaps not being edited). */
  others: PolicySource[];
}

/** One replacement, in offsets of the text before it (Monaco's content change). */
export interface TextEdit {
  offset: number;
  length: number;
  text: string;
}

/**
 * The edited text as the check worker is to hold it: whole, or the edits that take the
 * version it holds (`base`) to `version`, applied in order. `length` is the result's length,
 * a cheap guard against a worker that lost track.
 */
export type TextSync =
  | { kind: 'full'; version: number; text: string }
  | { kind: 'edits'; base: number; version: number; edits: TextEdit[]; length: number };

/** A check of the edited document; `others` is left out when unchanged since the last check. */
export interface CheckRequest {
  fileName: string;
  sync: TextSync;
  others?: PolicySource[];
}

export type ToWorker =
  | { kind: 'cluster'; cluster: ClusterData }
  /** Shared memory where the check worker also puts each check's diagnostics (answer-slot.ts). */
  | { kind: 'slot'; buffer: SharedArrayBuffer }
  | ({ kind: 'check'; seq: number } & CheckRequest)
  | { kind: 'preview'; seq: number; doc: EditedDoc }
  | { kind: 'format'; seq: number; text: string }
  | { kind: 'ping'; seq: number };

export type FromWorker =
  | { kind: 'diagnostics'; seq: number; diagnostics: Diagnostic[] }
  | { kind: 'preview'; seq: number; preview: Preview }
  | { kind: 'format'; seq: number; text: string | undefined }
  | { kind: 'pong'; seq: number }
  | { kind: 'failed'; seq: number; message: string; during: ToWorker['kind'] };
