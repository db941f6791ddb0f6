// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { calendarFromSamples, weekHourCell } from '../../src/edge/simulate/calendar-rows.js';
import { calendarSection } from '../../src/edge/report/calendar.js';
import type { Sample } from '../../src/edge/simulate/timeline.js';
import { elements } from './html-check.js';

const HOUR = 3_600_000;

/** One week of 15-minute samples from `monday` (UTC), Empty allowed when `open(t)`. */
function week(monday: number, open: (t: number) => boolean): Sample[] {
  const out: Sample[] = [];
  for (let at = monday; at < monday + 7 * 24 * HOUR; at += 15 * 60_000) {
    const allowed = open(at) ? 1 : 0;
    out.push({
      at,
      nodes: 1,
      nodesByPool: {},
      costPerHour: 0,
      pendingPods: 0,
      allowed: { berlin: { Empty: allowed }, utc: { Empty: allowed }, india: { Empty: allowed } },
    });
  }
  return out;
}

const zones = { berlin: 'Europe/Berlin', utc: 'UTC', india: 'Asia/Kolkata' };
const marked = (hours: number[]) => hours.flatMap((f, i) => (f > 0 ? [`${Math.floor(i / 24)}:${i % 24}:${f}`] : []));

describe('calendarFromSamples', () => {
  it.each([
    ['2026-01-05T00:00Z', 'Monday', 0],
    ['2026-01-11T23:59Z', 'Sunday', 6 * 24 + 23],
    ['2026-01-11T23:30Z', 'Monday in Berlin', 0],
  ])('weekHourCell(%s) is %s', (iso, _name, cell) => {
    expect(weekHourCell(Date.parse(iso), iso.endsWith('23:30Z') ? 'Europe/Berlin' : 'UTC')).toBe(cell);
  });

  it('a window Mon 08:00–16:00 UTC lands on 09–17 in Berlin in winter (CET) and 08–16 in UTC', () => {
    const monday = Date.UTC(2026, 0, 5);
    const rows = calendarFromSamples(
      week(monday, (t) => t >= monday + 8 * HOUR && t < monday + 16 * HOUR),
      zones,
    );
    const get = (pool: string) => rows.find((r) => r.nodePool === pool)!;
    expect(get('utc').timeZone).toBe('UTC');
    expect(marked(get('utc').hours)).toEqual([8, 9, 10, 11, 12, 13, 14, 15].map((h) => `0:${h}:1`));
    expect(get('berlin').timeZone).toBe('Europe/Berlin');
    expect(marked(get('berlin').hours)).toEqual([9, 10, 11, 12, 13, 14, 15, 16].map((h) => `0:${h}:1`));
  });

  it('in summer (CEST) the same UTC window is 10–18 in Berlin', () => {
    const monday = Date.UTC(2026, 6, 6);
    const rows = calendarFromSamples(
      week(monday, (t) => t >= monday + 8 * HOUR && t < monday + 16 * HOUR),
      zones,
    );
    expect(marked(rows.find((r) => r.nodePool === 'berlin')!.hours)).toEqual(
      [10, 11, 12, 13, 14, 15, 16, 17].map((h) => `0:${h}:1`),
    );
  });

  it('part-hours become fractions, also in a :30 zone (Kolkata, UTC+5:30)', () => {
    const monday = Date.UTC(2026, 0, 5);
    const rows = calendarFromSamples(
      week(monday, (t) => t >= monday + 8.5 * HOUR && t < monday + 10 * HOUR),
      zones,
    );
    expect(marked(rows.find((r) => r.nodePool === 'utc')!.hours)).toEqual(['0:8:0.5', '0:9:1']);
    // 08:30–10:00 UTC is 14:00–15:30 IST.
    expect(marked(rows.find((r) => r.nodePool === 'india')!.hours)).toEqual(['0:14:1', '0:15:0.5']);
  });

  it('null (unlimited) counts as allowed; hours never sampled stay 0', () => {
    const at = Date.UTC(2026, 0, 7, 12);
    const rows = calendarFromSamples(
      [0, 1, 2, 3].map((i) => ({
        at: at + i * 15 * 60_000,
        nodes: 0,
        nodesByPool: {},
        costPerHour: 0,
        pendingPods: 0,
        allowed: { p: { Drifted: null } },
      })),
      {},
    );
    expect(rows).toEqual([{ nodePool: 'p', reason: 'Drifted', timeZone: 'UTC', hours: expect.any(Array) }]);
    expect(marked(rows[0].hours)).toEqual(['2:12:1']);
  });

  it('the rendered calendar marks the same cells, Berlin vs UTC', () => {
    const monday = Date.UTC(2026, 0, 5);
    const rows = calendarFromSamples(
      week(monday, (t) => t >= monday + 8 * HOUR && t < monday + 16 * HOUR),
      zones,
    );
    const html = calendarSection(rows);
    const figures = [...html.matchAll(/<figure class="calendar" data-nodepool="(\w+)"[\s\S]*?<\/figure>/g)];
    const byPool = Object.fromEntries(
      figures.map((f) => {
        const cells = elements(f[0], 'rect').filter((c) => c.class === 'cell');
        expect(cells).toHaveLength(7 * 24);
        return [f[1], cells.filter((c) => Number(c['data-allowed']) > 0).map((c) => Number(c['data-hour']))];
      }),
    );
    expect(byPool.utc).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
    expect(byPool.berlin).toEqual([9, 10, 11, 12, 13, 14, 15, 16]);
  });
});
