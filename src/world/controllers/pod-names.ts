// SPDX-License-Identifier: Apache-2.0
// Generated pod names as the API server's generateName makes them (`<prefix><5 chars>` from
// its vowel-free alphabet), but from a seeded counter so a simulation replays identically.

const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export class NameGenerator {
  private counter = 0;

  constructor(private readonly seed = 0) {}

  next(prefix: string): string {
    let h = mix((this.seed ^ 0x9e3779b9) + ++this.counter);
    let suffix = '';
    for (let i = 0; i < 5; i++) {
      suffix += ALPHABET[h % ALPHABET.length];
      h = Math.floor(h / ALPHABET.length);
    }
    return `${prefix}${suffix}`;
  }
}

/** A 32-bit integer hash (murmur3's finaliser), so consecutive counters give unrelated names. */
function mix(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}
