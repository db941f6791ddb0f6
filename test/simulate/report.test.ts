// SPDX-License-Identifier: Apache-2.0
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/edge/report/report.js';
import { eventsTable } from '../../src/edge/report/tables.js';
import type { Timeline } from '../../src/edge/simulate/timeline.js';
import { elements, tagBalanceErrors } from './html-check.js';
import { syntheticTimeline, XSS } from './synthetic-timeline.js';

const ROOT = new URL('../..', import.meta.url).pathname;

/** The `<figure class="calendar">` blocks with their attributes and marked cells. */
type Calendar = { attrs: Record<string, string>; cells: Record<string, string>[]; marked: string[] };

function calendars(html: string): Calendar[] {
  return [...html.matchAll(/<figure class="calendar"([^>]*)>([\s\S]*?)<\/figure>/g)].map((m) => {
    const attrs = elements(`<figure${m[1]}>`, 'figure')[0];
    const cells = elements(m[2], 'rect').filter((c) => c.class === 'cell');
    return {
      attrs,
      cells,
      marked: cells.filter((c) => Number(c['data-allowed']) > 0).map((c) => `${c['data-day']}:${c['data-hour']}`),
    };
  });
}

describe('renderReport', () => {
  const timeline = syntheticTimeline();
  const html = renderReport(timeline, 'Business hours <2 weeks> & "drift"');

  it('writes a sample report to test-artifacts/', () => {
    mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
    writeFileSync(join(ROOT, 'test-artifacts/report-sample.html'), html);
    expect(html.startsWith('<!doctype html>')).toBe(true);
  });

  it('is well-formed: every element closed in order, no stray "<"', () => {
    expect(tagBalanceErrors(html)).toEqual([]);
  });

  it('the balance check catches a broken document (control)', () => {
    expect(tagBalanceErrors('<main><section><p>x</section></main>')).not.toEqual([]);
    expect(tagBalanceErrors('<p>a < b</p>')).not.toEqual([]);
  });

  it.each(['nodes', 'cost', 'disruptions', 'calendar', 'blocked', 'held', 'events'])(
    'has the %s section with content',
    (id) => {
      const m = new RegExp(`<section id="${id}">([\\s\\S]*?)</section>`).exec(html);
      expect(m).not.toBeNull();
      expect(m![1]).toMatch(/<svg|<table/);
    },
  );

  it('has a summary header with period, step, ticks, disruptions by reason, costs and wall time', () => {
    const header = /<header>([\s\S]*?)<\/header>/.exec(html)![1];
    expect(header).toContain('Business hours &lt;2 weeks&gt; &amp; &quot;drift&quot;');
    expect(header).toContain('2026-01-05 00:00 UTC');
    expect(header).toContain('2026-01-19 00:00 UTC');
    expect(header).toContain('>14d<'); // period
    expect(header).toContain('>1m<'); // step
    expect(header).toContain('20,160'); // ticks
    expect(header).toContain('Drifted 14');
    expect(header).toContain('Empty 10');
    expect(header).toContain('Underutilized 10');
    expect(header).toContain('12s'); // wall time
    expect(header).toMatch(/\$\d+\.\d\d → \$\d+\.\d\d/);
  });

  it('draws one line per pool plus the total, and the cost line', () => {
    const nodes = /<section id="nodes">([\s\S]*?)<\/section>/.exec(html)![1];
    expect(elements(nodes, 'path')).toHaveLength(3);
    expect(nodes).toContain('all nodes');
    expect(nodes).toContain('time (UTC)');
    const cost = /<section id="cost">([\s\S]*?)<\/section>/.exec(html)![1];
    expect(elements(cost, 'path')).toHaveLength(1);
    expect(cost).toMatch(/>\$\d+\.00</); // dollar y ticks
  });

  it('stacks disrupted nodes per reason: the bars add up to the records', () => {
    const bars = elements(html, 'rect').filter((r) => r.class === 'bar');
    const total = (reason: string) =>
      bars.filter((b) => b['data-reason'] === reason).reduce((a, b) => a + Number(b['data-nodes']), 0);
    expect(total('Drifted')).toBe(14);
    expect(total('Empty')).toBe(20); // 10 commands × 2 nodes
    expect(total('Underutilized')).toBe(10);
    const legend = /<section id="disruptions">[\s\S]*?<ul class="legend">([\s\S]*?)<\/ul>/.exec(html)![1];
    expect(legend.match(/<li>/g)).toHaveLength(3);
  });

  it('has a 7 × 24 calendar per NodePool and reason in the policy zone', () => {
    const cals = calendars(html);
    expect(cals.map((c) => `${c.attrs['data-nodepool']}/${c.attrs['data-reason']}/${c.attrs['data-zone']}`)).toEqual([
      'batch/Empty/UTC',
      'batch/Drifted/UTC',
      'batch/Underutilized/UTC',
      'web/Empty/Europe/Berlin',
      'web/Drifted/Europe/Berlin',
      'web/Underutilized/Europe/Berlin',
    ]);
    for (const c of cals) expect(c.cells).toHaveLength(168);
    const webEmpty = cals.find((c) => c.attrs['data-nodepool'] === 'web' && c.attrs['data-reason'] === 'Empty')!;
    const expected = [0, 1, 2, 3, 4].flatMap((d) => [9, 10, 11, 12, 13, 14, 15, 16].map((h) => `${d}:${h}`));
    expect(webEmpty.marked).toEqual(expected);
    // Drift is allowed 00:00–04:00 UTC, which is 01:00–05:00 in Berlin in January.
    const webDrift = cals.find((c) => c.attrs['data-nodepool'] === 'web' && c.attrs['data-reason'] === 'Drifted')!;
    expect(webDrift.marked.filter((k) => k.startsWith('0:'))).toEqual(['0:1', '0:2', '0:3', '0:4']);
  });

  it('escapes markup from messages and titles', () => {
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; &amp; friends');
    expect(html).not.toContain(XSS);
  });

  it('references nothing outside the file and needs no script', () => {
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/\b(src|href|xlink:href)\s*=/i);
    expect(html).not.toMatch(/url\(|@import/i);
    expect(html).not.toMatch(/<script|<iframe|<link|\bon[a-z]+=/i);
  });

  it('lists blocked reasons by count with an example each', () => {
    const rows = [...html.matchAll(/<table class="blocked">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/g)][0][1]
      .split('</tr>')
      .filter(Boolean);
    expect(rows.map((r) => /<code>([^<]*)<\/code>/.exec(r)![1])).toEqual([
      'budget',
      'pdb',
      'do-not-disrupt',
      'pod-window',
    ]);
    expect(rows[0]).toContain('5,120');
  });

  it('lists the NodePools held at 0, longest first, with what held them and its words escaped', () => {
    const body = /<table class="held">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(html)![1];
    const rows = body.split('</tr>').filter(Boolean);
    expect(rows.map((r) => [...r.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].slice(0, 4).map((m) => m[1]))).toEqual([
      ['web', 'Drifted', 'its budgets', '14,400'],
      ['batch', 'Underutilized', 'a rate budget', '95'],
    ]);
    expect(rows[1]).toContain('&lt;script&gt;');
    expect(renderReport({ ...timeline, held: [] }, 'x')).toContain('No NodePool was held at 0.');
  });

  it('keeps long runs small: 90 days of 1-minute samples', () => {
    const t = syntheticTimeline(1);
    const from = t.from;
    const samples = Array.from({ length: 90 * 1440 }, (_, i) => ({
      ...t.samples[0],
      at: from + i * 60_000,
      nodes: 10 + (i % 7),
      costPerHour: 1 + (i % 11) / 10,
    }));
    const out = renderReport({ ...t, to: from + 90 * 86_400_000, samples, calendar: [] }, 'long');
    expect(tagBalanceErrors(out)).toEqual([]);
    const nodePath = (html: string) =>
      elements(/<section id="nodes">([\s\S]*?)<\/section>/.exec(html)![1], 'path')[0].d;
    const top = (d: string) => Math.min(...[...d.matchAll(/V([\d.]+)/g)].map((m) => Number(m[1])));
    const d = nodePath(out);
    expect(d.split(/[HV]/).length).toBeLessThan(20_000);
    // The peak of 16 nodes survives decimation: same top as an undecimated series peaking at 16.
    const short = renderReport(
      { ...t, to: from + 90 * 86_400_000, samples: samples.slice(0, 7), calendar: [] },
      'short',
    );
    expect(top(d)).toBe(top(nodePath(short)));
    expect(out.length).toBeLessThan(1_000_000);
  });

  it('shows an event repeated every minute on one row, with its count and first and last time', () => {
    const at = (min: number) => Date.parse('2026-01-08T18:00:00Z') + min * 60_000;
    const blocked = (min: number, object = 'Node/i-01') => ({
      at: at(min),
      type: 'Normal',
      reason: 'DisruptionBlocked',
      object,
      message: 'Node is deleting or marked for deletion',
    });
    const events = [
      ...Array.from({ length: 120 }, (_, i) => blocked(i)),
      blocked(5, 'Node/i-04'),
      { ...blocked(130), reason: 'FailedDraining', message: 'Failed to drain node' },
    ];
    const html = eventsTable(events);
    expect(tagBalanceErrors(html)).toEqual([]);
    const rows = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)![1].split('</tr>').filter(Boolean);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toContain('FailedDraining');
    expect(rows[1]).toContain(
      '<td class="nowrap">2026-01-08 19:59 UTC</td><td class="num">120</td><td ' +
        'class="nowrap">2026-01-08 18:00 UTC</td>',
    );
    expect(rows[2]).toContain('Node/i-04');
    expect(html).toContain('122 events recorded: 3 distinct events, newest first');
    // At most `last` rows, the most recently seen.
    const many = Array.from({ length: 80 }, (_, i) => blocked(i, `Node/n-${i}`));
    const limited = eventsTable(many, 50);
    expect(limited.match(/<tr>/g)).toHaveLength(51); // header + 50
    expect(limited).toContain('Node/n-79');
    expect(limited).not.toContain('Node/n-29<');
    expect(limited).toContain('the 50 most recently seen of 80 distinct events');
  });

  it('renders an empty timeline without failing', () => {
    const t = syntheticTimeline(1);
    const empty: Timeline = {
      ...t,
      samples: [],
      disruptions: [],
      calendar: [],
      blocked: [],
      events: [],
      summary: { ...t.summary, disruptionsByReason: {} },
    };
    const out = renderReport(empty, 'empty');
    expect(tagBalanceErrors(out)).toEqual([]);
    expect(out).toContain('No disruptions in this period.');
    expect(out).toContain('Nothing was blocked.');
  });
});
