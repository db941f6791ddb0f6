// SPDX-License-Identifier: Apache-2.0
// Help for a duration written in another notation where the parser expected a duration:
// `5min`, `1.5h` and `2w` lex as names, `5 m` as a number and a name, `30` as a bare number.
import { tokenMatcher, type IToken } from 'chevrotain';
import type { Range } from './ast.js';
import { format } from './diagnostic.js';
import { isUnitWord, kpolDurationFor } from './duration-slips.js';
import { MESSAGES } from './messages.js';
import type { LineIndex } from './positions.js';
import { Name, NumberLit } from './tokens.js';

/** The range a duration hint covers, its help and, when certain, the kpol duration meant. */
export interface DurationHint {
  range: Range;
  help: string;
  fix?: string;
}

/** A hint for `found` where a duration was expected; `next` is the token after it. */
export function durationHint(found: IToken, next: IToken | undefined, lines: LineIndex): DurationHint | undefined {
  let end = found.startOffset + found.image.length;
  let text = found.image;
  if (tokenMatcher(found, NumberLit)) {
    const gap = next ? lines.text.slice(end, next.startOffset) : '';
    if (next && tokenMatcher(next, Name) && /^[ \t]+$/.test(gap) && isUnitWord(next.image)) {
      text = `${found.image} ${next.image}`;
      end = next.startOffset + next.image.length;
    }
  } else if (!tokenMatcher(found, Name) || !/^\d/.test(found.image)) {
    return undefined;
  }
  const range = lines.range(found.startOffset, end);
  const fix = kpolDurationFor(text);
  if (fix === undefined) return { range, help: MESSAGES.durationUnits.text };
  return { range, help: format(MESSAGES.durationDidYouMean.text, { suggestion: fix }), fix };
}
