// SPDX-License-Identifier: Apache-2.0
// The IANA zone names the runtime knows, for completion and "did you mean".
import { closest } from '../grammar/suggest.js';
import { isKnownTimeZone } from './window-zone.js';

type IntlWithZones = typeof Intl & { supportedValuesOf?: (key: 'timeZone') => string[] };

// Intl lists CLDR's canonical names, several of which are IANA's old spellings; users write
// the current ones, so these are listed too (when the runtime accepts them).
const CURRENT_NAMES = [
  'Asia/Kolkata',
  'Asia/Ho_Chi_Minh',
  'Asia/Kathmandu',
  'Asia/Yangon',
  'Europe/Kyiv',
  'America/Nuuk',
  'Atlantic/Faroe',
  'Africa/Asmara',
  'Pacific/Chuuk',
  'Pacific/Pohnpei',
  'Pacific/Kanton',
  'America/Argentina/Buenos_Aires',
  'America/Argentina/Catamarca',
  'America/Argentina/Cordoba',
  'America/Argentina/Jujuy',
  'America/Argentina/Mendoza',
  'America/Indiana/Indianapolis',
  'America/Kentucky/Louisville',
  'America/Atikokan',
  'Asia/Dhaka',
  'Asia/Thimphu',
  'Etc/UTC',
];

function listZones(): string[] {
  const supported = (Intl as IntlWithZones).supportedValuesOf?.('timeZone') ?? [];
  const current = CURRENT_NAMES.filter(isKnownTimeZone);
  return [...new Set(['UTC', ...supported, ...current])].sort();
}

/**
 * Every zone name the runtime lists (Intl.supportedValuesOf), the current IANA spellings of
 * CLDR's older canonical names (`Asia/Kolkata` beside `Asia/Calcutta`), and `UTC`; sorted.
 */
export function timeZones(): string[] {
  // Listed on first use (a suggestion, a completion): it costs ~10 ms, which `kpol check` of a
  // policy with valid zones does not need to pay.
  zones ??= listZones();
  return zones;
}
let zones: string[] | undefined;

/**
 * The known zone closest to a mistyped one: exact up to case (`europe/berlin`), then by the
 * city part alone (`Berlin` → `Europe/Berlin`), then by edit distance over the full name
 * (at most a third of its length, capped at 4). Undefined when nothing is close.
 */
export function suggestTimeZone(bad: string): string | undefined {
  const text = bad.trim().replace(/ /g, '_');
  if (text === '') return undefined;
  const all = timeZones();
  const sameButCase = all.find((z) => z.toLowerCase() === text.toLowerCase());
  if (sameButCase !== undefined) return sameButCase;
  const maxDistance = Math.min(4, Math.max(1, Math.floor(text.length / 3)));
  if (!text.includes('/')) {
    const cities = all.map((z) => z.slice(z.lastIndexOf('/') + 1));
    const city = closest(text, cities, Math.min(maxDistance, 2));
    if (city !== undefined) return all[cities.indexOf(city)];
  }
  return closest(text, all, maxDistance);
}
