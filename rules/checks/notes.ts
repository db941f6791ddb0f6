// SPDX-License-Identifier: Apache-2.0
// Help and related-location texts shared by several checks, taken from the message catalog.
import type { Range } from '../../grammar/ast.js';
import { format, type RelatedInfo } from '../../grammar/diagnostic.js';
import { MESSAGES } from '../../grammar/messages.js';
import { didYouMean } from '../../grammar/suggest.js';

/** "did you mean `x`?" for the closest candidate, or undefined when nothing is close. */
export function suggestion(
  word: string,
  candidates: readonly string[],
  maxDistance = 3,
): { help: string; fix: string } | undefined {
  return didYouMean(word, candidates, maxDistance);
}

/** Points back at the first occurrence; names its file when it lies in another one. */
export function firstWritten(range: Range, otherFile?: string): RelatedInfo[] {
  const message = otherFile
    ? format(MESSAGES.firstWrittenInFile.text, { file: otherFile })
    : MESSAGES.firstWrittenHere.text;
  return [{ range, message, ...(otherFile !== undefined && { file: otherFile }) }];
}

/** A string literal as it appears in the source, for quick fixes that replace the literal. */
export function quoted(value: string): string {
  return JSON.stringify(value);
}
