// SPDX-License-Identifier: Apache-2.0
// Time-zone literals: an unknown zone is an error. The window keeps the zone and would fail
// closed at evaluation, so a policy that relies on it never opens its window; `kpol check`
// must fail on it rather than let it through.
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
