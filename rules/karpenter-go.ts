// SPDX-License-Identifier: Apache-2.0
// Go standard-library behaviour that Karpenter inherits and whose error texts users see:
// `time.ParseDuration`, `strconv.Atoi` and the two quoting styles (`time`'s own and `%q`).
// Kept bit-exact (nanosecond integers via BigInt) because the texts end up in events.

export type GoResult<T> = { ok: true; value: T } | { ok: false; error: string };

const MAX_U = 1n << 63n; // Go's 1<<63 as uint64
const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  µs: 1000n, // U+00B5
  μs: 1000n, // U+03BC
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const HEX = '0123456789abcdef';
const utf8 = (c: string): number[] => [...new TextEncoder().encode(c)];

/** The `time` package's private `quote`: non-printable and non-ASCII bytes as `\xNN`. */
export function goTimeQuote(s: string): string {
  let out = '"';
  for (const c of s) {
    const cp = c.codePointAt(0)!;
    if (cp >= 0x80 || cp < 0x20) {
      for (const b of utf8(c)) out += '\\x' + HEX[b >> 4] + HEX[b & 15];
    } else {
      out += c === '"' || c === '\\' ? '\\' + c : c;
    }
  }
  return out + '"';
}

const ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

/** `fmt`'s `%q` (strconv.Quote): printable Unicode kept, C escapes, others as `\xNN`/`\uNNNN`. */
export function goQuote(s: string): string {
  let out = '"';
  for (const c of s) {
    const cp = c.codePointAt(0)!;
    if (c === '"' || c === '\\') out += '\\' + c;
    else if (ESCAPES[c]) out += ESCAPES[c];
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + HEX[cp >> 4] + HEX[cp & 15];
    else if (/\p{C}|\p{Z}/u.test(c) && c !== ' ')
      out += cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += c;
  }
  return out + '"';
}

/** Go's `time.ParseDuration`, returning seconds (possibly fractional or negative) or Go's exact error. */
// eslint-disable-next-line complexity -- follows Go's time.ParseDuration step by step, so it can be checked against it
export function goParseDuration(orig: string): GoResult<number> {
  const invalid = (): GoResult<number> => ({ ok: false, error: `time: invalid duration ${goTimeQuote(orig)}` });
  let s = orig;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return { ok: true, value: 0 };
  if (s === '') return invalid();
  let d = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || (s[0] >= '0' && s[0] <= '9'))) return invalid();
    // leading integer
    let i = 0;
    let v = 0n;
    for (; i < s.length && s[i] >= '0' && s[i] <= '9'; i++) {
      if (v > MAX_U / 10n) return invalid();
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > MAX_U) return invalid();
    }
    const pre = i > 0;
    s = s.slice(i);
    // fraction
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s !== '' && s[0] === '.') {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      for (; j < s.length && s[j] >= '0' && s[j] <= '9'; j++) {
        if (overflow) continue;
        if (f > (MAX_U - 1n) / 10n) {
          overflow = true;
          continue;
        }
        const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
        if (y > MAX_U) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) return invalid();
    let u = 0;
    for (; u < s.length; u++) if (s[u] === '.' || (s[u] >= '0' && s[u] <= '9')) break;
    if (u === 0) return { ok: false, error: `time: missing unit in duration ${goTimeQuote(orig)}` };
    const unitText = s.slice(0, u);
    s = s.slice(u);
    const unit = UNITS[unitText];
    if (unit === undefined)
      return { ok: false, error: `time: unknown unit ${goTimeQuote(unitText)} in duration ${goTimeQuote(orig)}` };
    if (v > MAX_U / unit) return invalid();
    v *= unit;
    if (f > 0n) {
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > MAX_U) return invalid();
    }
    d += v;
    if (d > MAX_U) return invalid();
  }
  if (!neg && d > MAX_U - 1n) return invalid();
  const seconds = Number(d / 1_000_000_000n) + Number(d % 1_000_000_000n) / 1e9;
  return { ok: true, value: neg ? -seconds : seconds };
}

/** Go's `strconv.Atoi` on a 64-bit platform, with its exact error text. */
export function goAtoi(s: string): GoResult<number> {
  const syntax = { ok: false as const, error: `strconv.Atoi: parsing ${goQuote(s)}: invalid syntax` };
  const m = /^([+-]?)([0-9]+)$/.exec(s);
  if (!m) return syntax;
  const n = BigInt(m[2]);
  const limit = m[1] === '-' ? MAX_U : MAX_U - 1n;
  if (n > limit) return { ok: false, error: `strconv.Atoi: parsing ${goQuote(s)}: value out of range` };
  return { ok: true, value: (m[1] === '-' ? -1 : 1) * Number(n) };
}
