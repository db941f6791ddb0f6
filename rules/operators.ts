// SPDX-License-Identifier: Apache-2.0
// Custom json-rules-engine operators. The graph names them; every engine that runs a graph
// registers them here (json-rules-engine stores operators by name only).
import type { Engine } from 'json-rules-engine';
import type { LabelSelector } from './model.js';
import { matchesSelector } from './selector.js';

export const CUSTOM_OPERATORS = {
  /** fact: a label map; value: a kpol LabelSelector. */
  matchesSelector: (labels: unknown, selector: unknown) =>
    matchesSelector(labels as Record<string, string>, selector as LabelSelector),
} as const;

export function registerOperators(engine: Engine): void {
  for (const [name, fn] of Object.entries(CUSTOM_OPERATORS)) engine.addOperator(name, fn as never);
}
