// SPDX-License-Identifier: Apache-2.0
// Time-zone literals: an unknown zone is a warning, not an error, because the window keeps
// the zone and fails closed at evaluation (the zone database may be newer there).
import type { Str } from '../../grammar/ast.js';
import { diagnostic, format, type Diagnostic } from '../../grammar/diagnostic.js';
import { MESSAGES } from '../../grammar/messages.js';
import { suggestTimeZone } from '../timezones.js';
import { isKnownTimeZone } from '../window.js';
import { quoted } from './notes.js';

export function timeZoneProblem(lit: Str): Diagnostic | undefined {
  if (isKnownTimeZone(lit.value)) return undefined;
  const best = suggestTimeZone(lit.value);
  const extra = best ? { help: format(MESSAGES.didYouMean.text, { suggestion: best }), fix: quoted(best) } : {};
  return diagnostic('unknownTimeZone', lit.range, { zone: lit.value }, extra);
}
