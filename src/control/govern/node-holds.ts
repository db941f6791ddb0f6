// SPDX-License-Identifier: Apache-2.0
// Per-node holds in govern mode. Karpenter has no pod windows or maintenance windows; the one
// per-node control it has is the Node annotation `karpenter.sh/do-not-disrupt: "true"`
// (KARPENTER.md#candidates, row 7). kpol sets it on a node while one of its holds is in force,
// with `kpol.dev/do-not-disrupt` saying why, and removes both when the hold ends. A node that
// carries the annotation without kpol's marker is the user's: kpol never touches it.
import type { Hold } from '../../../rules/node-verdict.js';
import { ANNOTATION_DO_NOT_DISRUPT, type KubeObject, type Node } from '../../core/cluster/types.js';

/** kpol's marker: present exactly while kpol holds the node; its value says why. */
export const ANNOTATION_HOLD = 'kpol.dev/do-not-disrupt';

export type NodeHoldState = 'held-by-kpol' | 'held-by-user' | 'free';

export function holdStateOf(node: Node): NodeHoldState {
  const a = node.metadata.annotations;
  if (a !== undefined && Object.hasOwn(a, ANNOTATION_HOLD)) return 'held-by-kpol';
  if (a !== undefined && Object.hasOwn(a, ANNOTATION_DO_NOT_DISRUPT)) return 'held-by-user';
  return 'free';
}

/** The marker's value: the first hold's code and message (a few holds joined, bounded). */
export function holdText(holds: readonly Hold[]): string {
  const text = holds.map((h) => `${h.code}: ${h.message}`).join('; ');
  return text.length > 1024 ? `${text.slice(0, 1021)}...` : text;
}

/** Server-side apply configurations: hold the node, or own nothing of it (releases the hold). */
export function holdApply(name: string, why: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, annotations: { [ANNOTATION_DO_NOT_DISRUPT]: 'true', [ANNOTATION_HOLD]: why } },
  };
}

export function releaseApply(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name } };
}
