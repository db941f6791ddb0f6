// SPDX-License-Identifier: Apache-2.0
// The IANA zone names the runtime knows, for completion and "did you mean".
import { closest } from './suggest.js';

type IntlWithZones = typeof Intl & { supportedValuesOf?: (key: 'timeZone') => string[] };

function listZones(): string[] {
  const supported = (Intl as IntlWithZones).supportedValuesOf?.('timeZone') ?? [];
  return [...new Set(['UTC', ...supported])].sort();
}

/** Every zone name the runtime lists (Intl.supportedValuesOf) plus `UTC`, sorted. */
export const TIME_ZONES: string[] = listZones();

/**
 * The known zone closest to a mistyped one: exact up to case (`europe/berlin`), then by the
 * city part alone (`Berlin` → `Europe/Berlin`), then by edit distance over the full name
 * (at most a third of its length, capped at 4). Undefined when nothing is close.
 */
export function suggestTimeZone(bad: string): string | undefined {
  const text = bad.trim().replace(/ /g, '_');
  if (text === '') return undefined;
  const maxDistance = Math.min(4, Math.max(1, Math.floor(text.length / 3)));
  if (!text.includes('/')) {
    const cities = TIME_ZONES.map((z) => z.slice(z.lastIndexOf('/') + 1));
    const city = closest(text, cities, Math.min(maxDistance, 2));
    if (city !== undefined) return TIME_ZONES[cities.indexOf(city)];
  }
  return closest(text, TIME_ZONES, maxDistance);
}
