// SPDX-License-Identifier: Apache-2.0
// The report's look: one inline style sheet and the colours. Series colours are the
// Okabe–Ito palette, which stays distinguishable with the common colour-vision deficiencies;
// lines also differ by dash pattern so colour is never the only cue.

export const PALETTE = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#CC79A7',
  '#D55E00',
  '#56B4E9',
  '#F0E442',
  '#000000',
] as const;

const REASON_COLOURS: Record<string, string> = {
  Empty: '#0072B2',
  Drifted: '#E69F00',
  Underutilized: '#009E73',
  Expired: '#CC79A7',
  Interrupted: '#D55E00',
};

/** A stable colour per disruption reason; unknown reasons take the remaining palette entries in order. */
export function reasonColour(reason: string, others: readonly string[] = []): string {
  if (REASON_COLOURS[reason]) return REASON_COLOURS[reason];
  const spare = ['#56B4E9', '#000000', '#F0E442'];
  const i = others.filter((r) => !REASON_COLOURS[r]).indexOf(reason);
  return spare[Math.max(0, i) % spare.length];
}

const REASON_ORDER = ['Empty', 'Drifted', 'Underutilized', 'Expired', 'Interrupted'];
export const reasonRank = (r: string): number =>
  REASON_ORDER.includes(r) ? REASON_ORDER.indexOf(r) : REASON_ORDER.length;

/** Distinct reasons in the house order (Karpenter's method order), unknown ones after, alphabetically. */
export function orderReasons(reasons: Iterable<string>): string[] {
  return [...new Set(reasons)].sort((a, b) => reasonRank(a) - reasonRank(b) || a.localeCompare(b));
}

export const DASHES = ['', '6 3', '2 3', '8 3 2 3'] as const;

/** Heatmap fill for the fraction of an hour allowed: grey for never, light to dark blue for (0, 1]. */
export function heatColour(fraction: number): string {
  if (!(fraction > 0)) return '#eeeeee';
  const f = Math.min(1, fraction);
  const from = [0xc6, 0xdb, 0xef];
  const to = [0x08, 0x45, 0x94];
  const c = from.map((a, i) => Math.round(a + (to[i] - a) * f));
  return `#${c.map((x) => x.toString(16).padStart(2, '0')).join('')}`;
}

export const REPORT_CSS = `
:root{color-scheme:light}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:#1a1a1a;font:14px/1.45 system-ui,-apple-system,"Segoe \
UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1200px;margin:0 auto;padding:24px}
h1{font-size:24px;margin:0 0 4px}
h2{font-size:18px;margin:36px 0 10px;padding-bottom:4px;border-bottom:1px solid #d0d0d0}
h3{font-size:14px;margin:0 0 4px}
p.sub,.muted{color:#555}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:12px;margin:16px 0 0}
.card{border:1px solid #d0d0d0;border-radius:6px;padding:10px 12px}
.card .k{color:#555;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.card .v{font-size:18px;font-weight:600;font-variant-numeric:tabular-nums}
.card .d{color:#555;font-size:12px}
svg{display:block;max-width:100%;height:auto}
svg text{font-size:12px;fill:#333;font-family:inherit}
svg .axis-title{font-size:12px;fill:#555}
.legend{display:flex;flex-wrap:wrap;gap:6px 16px;margin:6px 0 0;padding:0;list-style:none}
.swatch{display:inline-block;width:14px;height:14px;border-radius:2px;vertical-align:-2px;margin-right:6px;
  border:1px solid rgba(0,0,0,.25)}
.line-swatch{display:inline-block;width:24px;height:0;vertical-align:middle;margin-right:6px;border-top-width:3px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #e3e3e3;vertical-align:top}
th{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:#555}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.nowrap{white-space:nowrap;font-variant-numeric:tabular-nums}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
.heatmaps{display:grid;grid-template-columns:repeat(auto-fill,minmax(540px,1fr));gap:20px}
figure{margin:0}
.empty{color:#555;font-style:italic}
.chips{display:flex;flex-wrap:wrap;gap:6px;margin-top:4px}
.chip{border-radius:10px;padding:1px 8px;font-size:12px;background:#f2f2f2}
`;
