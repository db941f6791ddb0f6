// SPDX-License-Identifier: Apache-2.0
// The editor's language pieces that do not need a browser: hover docs cover the lexer's
// keywords, completion picks the right words for the context, and the worker's analysis
// (diagnostics, preview, week calendar) gives what the checker and evaluator give.
import { describe, expect, it } from 'vitest';
import { KEYWORDS, REASONS } from '../../grammar/tokens.js';
import { checkSource } from '../../rules/checks/check.js';
import { connect, diagnosticsFor, previewFor } from '../../editor/src/analysis.js';
import { clusterWords } from '../../src/core/cluster/cluster-words.js';
import { contextOffers, offersAt } from '../../rules/completion.js';
import { KEYWORD_DOCS, REASON_DOCS } from '../../grammar/keyword-docs.js';
import { simulationObjects } from '../../src/edge/simulate/cluster-objects.js';
import { readFileSync } from 'node:fs';

const DEMO = new URL('../../rules/examples/demo/cluster.yaml', import.meta.url).pathname;
const objects = simulationObjects(readFileSync(DEMO, 'utf8'), DEMO).objects;
const words = clusterWords(objects);

describe('hover docs', () => {
  it.each(KEYWORDS)('keyword `%s` has documentation', (k) => expect(KEYWORD_DOCS[k]).toMatch(/\S{3}/));
  it.each(REASONS)('reason `%s` has documentation', (r) => expect(REASON_DOCS[r]).toContain(r));
});

describe('completion', () => {
  const labels = (before: string) => offersAt(before, words).map((o) => `${o.kind}:${o.label}`);
  it('offers reasons after `budget N for` and in a reason list', () => {
    for (const before of ['  budget 1 for ', '  budget 1 for Empty, ', '  window w blocks ', '  freeze ']) {
      expect(labels(before)).toEqual(expect.arrayContaining(REASONS.map((r) => `reason:${r}`)));
    }
  });
  it('offers the cluster’s label keys after `where` and a key’s values after `=`', () => {
    const someKey = [...words.labels.keys()][0];
    expect(someKey).toBeDefined();
    expect(labels('  pods where ')).toEqual([...words.labels.keys()].map((k) => `labelKey:${k}`));
    expect(labels(`  pods where ${someKey} = `)).toEqual(words.labels.get(someKey)!.map((v) => `labelValue:${v}`));
    expect(labels(`  pods where ${someKey} in (`)).toEqual(words.labels.get(someKey)!.map((v) => `labelValue:${v}`));
  });
  it('offers NodePool names after `nodepool`, consolidation policies after `when`, zones in a zone string', () => {
    expect(labels('policy p for nodepool ')).toEqual(
      expect.arrayContaining(words.nodePools.map((n) => `nodepool:${n}`)),
    );
    expect(words.nodePools).toEqual(['default', 'gpu']);
    expect(labels('  consolidate when ')).toEqual([
      'consolidation:empty',
      'consolidation:empty or underutilized',
      'consolidation:balanced',
    ]);
    expect(labels('  allow 3 only during "0 1 * * *" for 4h in "')).toContain('zone:Europe/Berlin');
    expect(labels('  budget 0 during "')).toEqual([]); // a cron string: nothing to offer
  });
  it(
    'a trigger character opens only what the context calls for; elsewhere every keyword and ' +
      'reason waits for a letter',
    () => {
      expect(contextOffers('  budget 5 ', words)).toBeUndefined();
      expect(contextOffers('  consolidate when empty ', words)).toBeUndefined();
      expect(labels('  budget 5 ')).toEqual([
        ...KEYWORDS.map((k) => `keyword:${k}`),
        ...REASONS.map((r) => `reason:${r}`),
      ]);
      expect(contextOffers('  budget 5 for ', words)?.map((o) => o.label)).toEqual([...REASONS, 'during']);
      expect(contextOffers('  ', words)?.map((o) => o.label)).toContain('budget');
    },
  );
});

describe('worker analysis', () => {
  const cluster = connect({ now: Date.parse('2026-11-23T12:00:00Z'), objects, files: [] });
  const doc = (text: string) => ({ fileName: 'ConfigMap kpol-system/t t.kpol', text, others: [] });

  it('gives the checker’s diagnostics for the edited text', () => {
    const text = 'policy t for nodepool default {\n  budget 1 for Drifed\n}\n';
    const d = diagnosticsFor(doc(text), cluster);
    expect(d.map((x) => [x.code, x.range.start.line, x.range.start.character, x.fix])).toEqual(
      checkSource(text).diagnostics.map((x) => [x.code, x.range.start.line, x.range.start.character, x.fix]),
    );
    expect(d.some((x) => x.fix === 'Drifted' && x.range.start.line === 1 && x.range.start.character === 15)).toBe(true);
  });

  it('draws the week in the policy’s zone: Drifted only Monday–Friday 01:00–05:00 Berlin time', async () => {
    const text =
      'policy t for nodepool default {\n  allow 3 Drifted only during "0 1 * * mon-fri" for 4h in "Europe/Berlin"\n}\n';
    const p = await previewFor(doc(text), cluster);
    const row = p!.calendar.find((r) => r.nodePool === 'default' && r.reason === 'Drifted')!;
    expect(row.timeZone).toBe('Europe/Berlin');
    const expected = Array.from({ length: 168 }, (_, i) =>
      Math.floor(i / 24) < 5 && i % 24 >= 1 && i % 24 < 5 ? 1 : 0,
    );
    expect(row.hours).toEqual(expected);
    expect(p!.calendar.some((r) => r.nodePool === 'gpu')).toBe(false); // not governed by the edited policy
  });

  it('says why a pool allows less than its budget: rate budgets, and cluster budgets folded into its row', async () => {
    // At 12:00 UTC on a Monday: the cluster budget of 0 for Drifted during business hours binds both pools.
    const text =
      'cluster budget 0 for Drifted during "0 9 * * 1-5" for 8h\n' +
      'policy t for nodepool default, gpu {\n  budget 5 for Drifted\n  budget 2 per 1h for Empty\n}\n';
    const p = (await previewFor(doc(text), cluster))!;
    expect(p.nodePools.default.allowed.Drifted).toBe(5); // the pool's own allowance, as `kpol eval` gives it
    expect(p.now.default.allowed.Drifted).toBe(0); // what the row shows: the cluster budget folded in
    expect(p.now.gpu.allowed.Drifted).toBe(0);
    expect(p.now.default.allowed.Empty).toBe(2);
    expect(p.now.default.notes).toEqual([
      'rate budget 2 per 1h for Empty: 0 disruptions started in the last 1h; 2 more may start',
      'cluster budget 0 for Drifted during "0 9 * * 1-5" for 8h (t t.kpol:1) allows Drifted 0 across default, gpu',
    ]);
  });

  it('gives no preview for text with errors', async () => {
    expect(await previewFor(doc('policy t for nodepool default {\n  budget x\n}\n'), cluster)).toBeUndefined();
  });
});
