// SPDX-License-Identifier: Apache-2.0
// Unsaved edits in localStorage, per policy address, so they survive a reload or a crash. A
// draft remembers the version it was based on, so a reload can tell a draft from a stale one.
import type { PolicyAddress } from './api.js';

export interface Draft {
  text: string;
  /** resourceVersion the edit started from; undefined for a policy not saved yet. */
  baseVersion?: string;
  savedAt: number; // epoch ms (display only)
}

const PREFIX = 'kpol.draft:';
const LAST = 'kpol.last';

export const addressKey = (a: PolicyAddress) => `${a.namespace}/${a.name}/${a.key}`;

export function loadDraft(a: PolicyAddress): Draft | undefined {
  const raw = localStorage.getItem(PREFIX + addressKey(a));
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as Draft;
  } catch {
    return undefined;
  }
}

export function storeDraft(a: PolicyAddress, d: Draft): void {
  localStorage.setItem(PREFIX + addressKey(a), JSON.stringify(d));
  localStorage.setItem(LAST, addressKey(a));
}

export function dropDraft(a: PolicyAddress): void {
  localStorage.removeItem(PREFIX + addressKey(a));
}

/** The address edited last, to reopen after a reload. */
export function lastAddress(): string | undefined {
  return localStorage.getItem(LAST) ?? undefined;
}
