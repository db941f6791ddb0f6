// SPDX-License-Identifier: Apache-2.0
// A strict reader for the text format 0.0.4, written independently of the renderer so the
// tests check the output rather than the renderer's own helpers.

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface ParsedExposition {
  help: Map<string, string>;
  type: Map<string, string>;
  samples: ParsedSample[];
}

function unescape(s: string, quote: boolean): string {
  return s.replace(quote ? /\\(["\\n])/g : /\\([\\n])/g, (_m, c: string) => (c === 'n' ? '\n' : c));
}

function parseValue(s: string): number {
  if (s === '+Inf') return Infinity;
  if (s === '-Inf') return -Infinity;
  if (/^nan$/i.test(s)) return NaN; // Go's ParseFloat, which Prometheus uses, takes any case
  if (!/^-?\d+(\.\d+)?(e[+-]?\d+)?$/.test(s)) throw new Error(`bad value ${s}`);
  return Number(s);
}

export function parseExposition(text: string): ParsedExposition {
  if (!text.endsWith('\n')) throw new Error('exposition must end with a newline');
  const out: ParsedExposition = { help: new Map(), type: new Map(), samples: [] };
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue; // the format ignores empty lines (prom-client puts one between families)
    let m = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (m) {
      out.help.set(m[1], unescape(m[2], false));
      continue;
    }
    m = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (m) {
      out.type.set(m[1], m[2]);
      continue;
    }
    m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`unparseable line: ${line}`);
    const labels: Record<string, string> = {};
    if (m[3] !== undefined) {
      const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/gy;
      let pos = 0;
      for (let lm = re.exec(m[3]); lm; lm = re.exec(m[3])) {
        labels[lm[1]] = unescape(lm[2], true);
        pos = re.lastIndex;
        if (lm[3] === '') break;
      }
      if (pos !== m[3].length) throw new Error(`bad labels: ${m[3]}`);
    }
    out.samples.push({ name: m[1], labels, value: parseValue(m[4]) });
  }
  return out;
}

/** The one sample with exactly these labels, or undefined. */
export function sample(p: ParsedExposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = JSON.stringify(Object.entries(labels).sort());
  return p.samples.find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === want)?.value;
}
