// SPDX-License-Identifier: Apache-2.0
// Trial evaluation: before a policy set replaces the one in force, it is evaluated once over the
// current cluster view at a few instants (now, and later ones that reach into its windows and
// long durations), because `check` proving a policy well-formed does not prove every instant
// evaluates (issue 13, defect 1). When the set throws, each kpol policy is tried alone to name
// the one to blame, and the error is located on its `policy NAME` header so the ConfigMap status
// and the Warning event read like a `kpol check` error.
import type { Diagnostic } from '../../../grammar/diagnostic.js';
import type { PolicySpec } from '../../../rules/model.js';
import type { LocatedError } from './last-good.js';
import type { PolicySource } from './load.js';

/** Evaluates `policies` over the host's current cluster view at `atMs`; throws what evaluation throws. */
export type EvaluateAt = (policies: readonly PolicySpec[], atMs: number) => Promise<void>;

/** The error code of a policy that checks but cannot be evaluated (rules/README.md, diagnostics). */
export const CODE_CANNOT_EVALUATE = 'KPOL4001';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/**
 * Offsets from now of the trial instants: now, then one per scale a window or a duration works
 * at (an hour, a day, a week, a month, a year), so a failure that only a later instant reaches
 * is usually caught at load rather than ticks later. Six evaluations per changed policy set.
 */
export const TRIAL_OFFSETS_MS: readonly number[] = [0, HOUR, DAY, 7 * DAY, 31 * DAY, 366 * DAY];

export interface TrialFailure {
  /** The policy that fails on its own; undefined when only the set fails (or a built-in one). */
  policy: PolicySpec | undefined;
  atMs: number;
  error: string;
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Runs the trial; undefined when every instant evaluates. */
export async function trialEvaluate(
  policies: readonly PolicySpec[],
  evaluateAt: EvaluateAt,
  nowMs: number,
  offsets: readonly number[] = TRIAL_OFFSETS_MS,
): Promise<TrialFailure | undefined> {
  for (const offset of offsets) {
    const atMs = nowMs + offset;
    try {
      await evaluateAt(policies, atMs);
    } catch (e) {
      return { policy: await blame(policies, evaluateAt, atMs), atMs, error: messageOf(e) };
    }
  }
  return undefined;
}

/**
 * The first kpol policy that fails alone at `atMs` (NodePools it does not govern fall back to
 * their own rules). None when the view cannot even be evaluated without kpol policies (an API
 * server that is down must not be blamed on a policy).
 */
export async function blame(
  policies: readonly PolicySpec[],
  evaluateAt: EvaluateAt,
  atMs: number,
): Promise<PolicySpec | undefined> {
  try {
    await evaluateAt([], atMs);
  } catch {
    return undefined;
  }
  for (const p of policies) {
    if (p.origin !== 'kpol') continue;
    try {
      await evaluateAt([p], atMs);
    } catch {
      return p;
    }
  }
  return undefined;
}

/** The failure as a located error on the policy's header (line 1 when the header is not found). */
export function locateFailure(failure: TrialFailure, sources: readonly PolicySource[]): LocatedError {
  const name = failure.policy?.name ?? '(set)';
  const source = sources.find((s) => s.fileName === failure.policy?.file) ?? sources[0];
  const at = new Date(failure.atMs).toISOString();
  const where = source ? headerOf(source.text, name) : { line: 0, character: 0, offset: 0, length: 0 };
  const diagnostic: Diagnostic = {
    code: CODE_CANNOT_EVALUATE,
    severity: 'error',
    message: `policy \`${name}\` cannot be evaluated at ${at}: ${failure.error}`,
    range: {
      start: { line: where.line, character: where.character, offset: where.offset },
      end: { line: where.line, character: where.character + where.length, offset: where.offset + where.length },
    },
  };
  return { fileName: source?.fileName ?? '(unknown)', diagnostic };
}

function headerOf(text: string, name: string): { line: number; character: number; offset: number; length: number } {
  let offset = 0;
  for (const [i, line] of text.split('\n').entries()) {
    const m = /^(\s*policy\s+)([^\s{]+)/.exec(line);
    if (m && m[2] === name)
      return { line: i, character: m[1].length, offset: offset + m[1].length, length: name.length };
    offset += line.length + 1;
  }
  return { line: 0, character: 0, offset: 0, length: 0 };
}

/**
 * The start-up trial of `--policy` files: the located error of the first policy that cannot be
 * evaluated over the cluster, or undefined. A failure no policy is to blame for (the view itself)
 * is not the files' fault, and is left to the ticks to report.
 */
export async function unevaluableFile(
  policies: readonly PolicySpec[],
  sources: readonly PolicySource[],
  evaluateAt: EvaluateAt,
  nowMs: number,
): Promise<LocatedError | undefined> {
  const failure = await trialEvaluate(policies, evaluateAt, nowMs);
  return failure?.policy ? locateFailure(failure, sources) : undefined;
}
