// SPDX-License-Identifier: Apache-2.0
// The API server's error responses, with the messages the real server writes, so callers that
// match on text (Karpenter does for the multiple-PDB case) behave the same on both backends.
import { ApiError, type ApiReason, type Kind } from '../client.js';
import { KINDS } from './kinds.js';

/**
 * An ApiError without a stack trace. A real API server's Status carries none either, and
 * capturing one for every eviction a PDB refuses costs more than the eviction itself.
 */
export function apiError(code: number, reason: ApiReason, message: string): ApiError {
  const errors = Error as { stackTraceLimit?: number };
  const limit = errors.stackTraceLimit;
  errors.stackTraceLimit = 0;
  try {
    return new ApiError(code, reason, message);
  } finally {
    errors.stackTraceLimit = limit;
  }
}

export const notFound = (kind: Kind, name: string): ApiError =>
  apiError(404, 'NotFound', `${KINDS[kind].resource} "${name}" not found`);

export const alreadyExists = (kind: Kind, name: string): ApiError =>
  apiError(409, 'AlreadyExists', `${KINDS[kind].resource} "${name}" already exists`);

export const conflict = (kind: Kind, name: string): ApiError =>
  apiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${KINDS[kind].resource} "${name}": the object has been ` +
      `modified; please apply your changes to the latest version and try again`,
  );

export const preconditionFailed = (
  field: 'UID' | 'ResourceVersion',
  expected: string,
  actual: string | undefined,
): ApiError =>
  apiError(
    409,
    'Conflict',
    `Precondition failed: ${field} in precondition: ${expected}, ${field} in object meta: ${actual ?? ''}`,
  );

export const invalid = (kind: Kind, name: string, detail: string): ApiError =>
  apiError(422, 'Invalid', `${kind} "${name}" is invalid: ${detail}`);

export const MULTIPLE_PDBS =
  'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.';
export const PDB_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";
