// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { closest, editDistance } from '../../../grammar/suggest.js';
import { suggestTimeZone, timeZones } from '../../../rules/timezones.js';
import { isKnownTimeZone } from '../../../rules/window.js';

describe('timeZones', () => {
  it('lists UTC and the IANA zones the runtime knows, all of them valid', () => {
    const TIME_ZONES = timeZones();
    expect(TIME_ZONES).toContain('UTC');
    expect(TIME_ZONES).toContain('Europe/Berlin');
    expect(TIME_ZONES).toContain('Asia/Kolkata');
    expect(new Set(TIME_ZONES).size).toBe(TIME_ZONES.length);
    expect(TIME_ZONES.every(isKnownTimeZone)).toBe(true);
  });
});

describe('suggestTimeZone', () => {
  it.each([
    ['Europe/Berln', 'Europe/Berlin'],
    ['europe/berlin', 'Europe/Berlin'],
    ['America/New York', 'America/New_York'],
    ['America/NewYork', 'America/New_York'],
    ['Asia/Calcutta_', 'Asia/Calcutta'],
    ['Berlin', 'Europe/Berlin'],
    ['Kolkata', 'Asia/Kolkata'],
    ['UTc', 'UTC'],
  ])('%j → %j', (bad, good) => {
    expect(suggestTimeZone(bad)).toBe(good);
  });

  it.each(['', 'Mars/Olympus_Mons', 'xyz'])('nothing close to %j', (bad) => {
    expect(suggestTimeZone(bad)).toBeUndefined();
  });
});

describe('closest', () => {
  it.each([
    ['Drifed', ['Empty', 'Drifted', 'Underutilized'], 'Drifted'],
    ['drifted', ['Empty', 'Drifted', 'Underutilized'], 'Drifted'],
    ['Underutilised', ['Empty', 'Drifted', 'Underutilized'], 'Underutilized'],
    ['Banana', ['Empty', 'Drifted', 'Underutilized'], undefined],
    ['@daliy', ['@daily', '@hourly'], '@daily'],
  ])('%j in %j → %j', (word, candidates, expected) => {
    expect(closest(word, candidates, 3)).toBe(expected);
  });

  it('respects maxDistance and prefers the earlier candidate on ties', () => {
    expect(closest('abcd', ['abxy'], 1)).toBeUndefined();
    expect(closest('abcd', ['abxy'], 2)).toBe('abxy');
    expect(closest('cat', ['bat', 'hat'], 1)).toBe('bat');
  });

  it('editDistance', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
    expect(editDistance('fro', 'for')).toBe(1); // a swap of neighbours is one edit
    expect(editDistance('budgte', 'budget')).toBe(1);
    expect(editDistance('ab', 'ba')).toBe(1);
    expect(editDistance('abc', 'ca')).toBe(3); // optimal string alignment: no edit of a swapped pair
  });
});
