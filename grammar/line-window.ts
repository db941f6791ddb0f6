// SPDX-License-Identifier: Apache-2.0
// The part of a source line a diagnostic shows: a window of at most WINDOW_COLUMNS columns
// around the range, marked with … where the line was cut. Echoing whole lines made output grow
// with errors × line length (issue 13: one 105 KB line of errors ran `kpol check` out of memory).

/** Columns of source a diagnostic shows, … marks included: a terminal line, with room to spare. */
export const WINDOW_COLUMNS = 100;
/** Columns kept before the range when the line is cut, so the reader sees what led up to it. */
const CONTEXT_BEFORE = 40;
const CUT = '…';

export interface LineWindow {
  /** The text to print (with … where cut). */
  text: string;
  /** Where the range starts and ends in `text`; `end - start` ≥ 1, clipped to the window. */
  start: number;
  end: number;
}

/** The window of `line` that shows columns `[start, stop)` (stop past the line: to its end). */
export function lineWindow(line: string, start: number, stop: number): LineWindow {
  const from0 = Math.min(start, line.length);
  if (line.length <= WINDOW_COLUMNS) {
    return { text: line, start: from0, end: Math.max(from0 + 1, Math.min(stop, line.length)) };
  }
  let from = Math.max(0, from0 - CONTEXT_BEFORE);
  // Each cut side costs one column for its … mark.
  let to = Math.min(line.length, from + WINDOW_COLUMNS - (from > 0 ? 1 : 0) - 1);
  if (to >= line.length - 1) {
    to = line.length;
    from = line.length - (WINDOW_COLUMNS - 1);
  }
  from = notInsidePair(line, from, +1);
  to = notInsidePair(line, to, -1);
  const head = from > 0 ? CUT : '';
  const tail = to < line.length ? CUT : '';
  const shift = head.length - from;
  const end = Math.max(from0 + 1, Math.min(stop, to, line.length));
  return { text: head + line.slice(from, to) + tail, start: from0 + shift, end: Math.min(end, to) + shift };
}

/** Moves a cut off the middle of a surrogate pair, so no half character is printed. */
function notInsidePair(line: string, at: number, step: 1 | -1): number {
  const c = line.charCodeAt(at);
  return at > 0 && at < line.length && c >= 0xdc00 && c <= 0xdfff ? at + step : at;
}
