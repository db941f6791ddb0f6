// SPDX-License-Identifier: Apache-2.0
// A real API server's failure (a Status object, or no answer at all) as the ApiError every
// ClusterClient throws, so callers match on code and reason the same way on both backends.
import type { ApiError, ApiReason } from '../../core/cluster/client.js';
import { apiError } from '../../core/cluster/memory/errors.js';

const REASONS: ReadonlySet<string> = new Set<ApiReason>([
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'TooManyRequests',
  'Invalid',
  'InternalError',
  'BadRequest',
  'Unauthorized',
  'Forbidden',
  'Gone',
  'Expired',
  'ServiceUnavailable',
  'Timeout',
]);

const BY_CODE: Readonly<Record<number, ApiReason>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Gone',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

interface Status {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
}

/** The error for an HTTP answer that is not 2xx; `body` is the raw response text. */
export function statusError(httpCode: number, body: string, what: string): ApiError {
  let status: Status = {};
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object') status = parsed as Status;
  } catch {
    // Not a Status (a proxy's HTML page, say): the text itself is the best message.
  }
  const code = typeof status.code === 'number' && status.code >= 400 ? status.code : httpCode;
  const reason: ApiReason =
    status.reason && REASONS.has(status.reason)
      ? (status.reason as ApiReason)
      : (BY_CODE[code] ?? (code >= 500 ? 'InternalError' : 'Unknown'));
  const message = status.message || body.trim().slice(0, 300) || `${what}: HTTP ${httpCode}`;
  return apiError(code, reason, message);
}

/** The error for a request that got no answer (refused, reset, timed out, bad TLS). */
export function transportError(server: string, what: string, cause: unknown): ApiError {
  const err = cause as { message?: string; cause?: { message?: string; code?: string } } | undefined;
  const detail = err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(cause);
  return apiError(503, 'ServiceUnavailable', `${what}: cannot reach the API server at ${server}: ${detail}`);
}
