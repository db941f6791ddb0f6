// SPDX-License-Identifier: Apache-2.0
// How a policy ConfigMap is told whether kpol enforces its current version: the status
// annotation (`valid`, or the first errors) and the Warning Event's text. Both name errors as
// `configmap/<ns>/<name>/<key>:line:col: error CODE: message`, the CLI's header line, so a
// user can paste the location into `kpol check` output or an editor.
import type { LocatedError } from './last-good.js';

/**
 * Label that marks a ConfigMap in the controller's namespace as carrying `*.kpol` keys (any value; `"true"` by
 * convention).
 */
export { LABEL_POLICY_CONFIGMAP } from '../cluster/types.js';
/** Annotation kpol writes on every policy ConfigMap: `valid`, or the first errors of its current version. */
export const ANNOTATION_POLICY_STATUS = 'kpol.dev/status';
export const STATUS_VALID = 'valid';
/** Warning Event reason on a ConfigMap whose current version is refused. */
export const REASON_POLICY_INVALID = 'PolicyInvalid';
/** Normal Event reason on a ConfigMap whose current version is now enforced after being refused. */
export const REASON_POLICY_VALID = 'PolicyValid';

/** Warning Event reason on a ConfigMap whose policy in force could not be evaluated in a tick. */
export const REASON_POLICY_EVALUATION_FAILED = 'PolicyEvaluationFailed';

/** How many errors the annotation and the event name; the rest are counted. */
const SHOWN = 3;

export function formatError(e: LocatedError): string {
  const { start } = e.diagnostic.range;
  return `${e.fileName}:${start.line + 1}:${start.character + 1}: error ${e.diagnostic.code}: ${e.diagnostic.message}`;
}

/** The first errors, `; `-separated (annotations read best on one line), and how many more. */
export function summariseErrors(errors: readonly LocatedError[]): string {
  const shown = errors.slice(0, SHOWN).map(formatError).join('; ');
  const more = errors.length - SHOWN;
  return more > 0 ? `${shown}; and ${more} more` : shown;
}

export function invalidEventMessage(errors: readonly LocatedError[]): string {
  return `policy not applied, the last good version stays in force: ${summariseErrors(errors)}`;
}

export function evaluationFailedEventMessage(errors: readonly LocatedError[]): string {
  return `policy in force cannot be evaluated, kpol blocks disruption until it can: ${summariseErrors(errors)}`;
}
