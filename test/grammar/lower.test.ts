// SPDX-License-Identifier: Apache-2.0
// Every construct lowers to the right AST node; ranges are checked where they are subtle.
import { describe, expect, it } from 'vitest';
import type { Statement } from '../../grammar/ast.js';
import { parse } from '../../grammar/parse.js';

function statement(line: string): Statement {
  const { value, diagnostics } = parse(`policy p for nodepool a {\n  ${line}\n}\n`);
  expect(diagnostics).toEqual([]);
  expect(value.policies[0]!.statements).toHaveLength(1);
  return value.policies[0]!.statements[0]!;
}

/** Drops ranges so expectations read like the source. */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shape);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => k !== 'range')
      .map(([k, x]) => [k, shape(x)]),
  );
}

const name = (text: string) => ({ kind: 'Name', text });
const str = (value: string) => ({ kind: 'Str', value });
const dur = (text: string) => ({ kind: 'Duration', text });
const qty = (text: string, value: number, percent = false) => ({ kind: 'Quantity', text, value, percent });

describe('lower', () => {
  it.each([
    ['consolidate never', { kind: 'Consolidate', after: { kind: 'Never' } }],
    ['consolidate when empty', { kind: 'Consolidate', policy: name('WhenEmpty') }],
    [
      'consolidate when empty or underutilized after 5m',
      { kind: 'Consolidate', policy: name('WhenEmptyOrUnderutilized'), after: dur('5m') },
    ],
    [
      'consolidate when balanced after never',
      { kind: 'Consolidate', policy: name('Balanced'), after: { kind: 'Never' } },
    ],
    ['consolidate after 30s', { kind: 'Consolidate', after: dur('30s') }],
    ['expire never', { kind: 'Expire', after: { kind: 'Never' }, graceful: false }],
    ['expire after 720h gracefully', { kind: 'Expire', after: dur('720h'), graceful: true }],
    ['expire after never', { kind: 'Expire', after: { kind: 'Never' }, graceful: false }],
    ['termination grace 24h', { kind: 'TerminationGrace', duration: dur('24h') }],
    ['timezone "Europe/Berlin"', { kind: 'TimeZone', zone: str('Europe/Berlin') }],
    ['budget 5', { kind: 'Budget', nodes: qty('5', 5), reasons: [] }],
    [
      'budget 20% for Empty, Drifed',
      { kind: 'Budget', nodes: qty('20%', 20, true), reasons: [name('Empty'), name('Drifed')] },
    ],
    [
      'budget 0 for Underutilized during "@daily" for 10m',
      {
        kind: 'Budget',
        nodes: qty('0', 0),
        reasons: [name('Underutilized')],
        window: { kind: 'Window', schedule: str('@daily'), duration: dur('10m') },
      },
    ],
    [
      'allow 3 Drifted only during "0 1 * * mon-fri" for 4h in "Europe/Berlin"',
      {
        kind: 'Allow',
        nodes: qty('3', 3),
        reasons: [name('Drifted')],
        window: {
          kind: 'Window',
          schedule: str('0 1 * * mon-fri'),
          duration: dur('4h'),
          timeZone: str('Europe/Berlin'),
        },
      },
    ],
    [
      'allow 2 only during nightly',
      { kind: 'Allow', nodes: qty('2', 2), reasons: [], window: { kind: 'Window', schedule: name('nightly') } },
    ],
    [
      'freeze Drifted, Underutilized from "2026-12-20 00:00" to "2027-01-02 00:00" in "Europe/Berlin"',
      {
        kind: 'Freeze',
        reasons: [name('Drifted'), name('Underutilized')],
        when: {
          kind: 'DateRange',
          from: str('2026-12-20 00:00'),
          to: str('2027-01-02 00:00'),
          timeZone: str('Europe/Berlin'),
        },
      },
    ],
    [
      'freeze from "2026-12-24T00:00:00Z" to "2026-12-27T00:00:00Z"',
      {
        kind: 'Freeze',
        reasons: [],
        when: { kind: 'DateRange', from: str('2026-12-24T00:00:00Z'), to: str('2026-12-27T00:00:00Z') },
      },
    ],
    [
      'pods in namespace payments disruptable only during "0 22 * * *" for 8h',
      {
        kind: 'PodWindow',
        namespaces: [name('payments')],
        mode: 'only',
        window: { kind: 'Window', schedule: str('0 22 * * *'), duration: dur('8h') },
      },
    ],
    [
      'window always-off blocks Drifted',
      { kind: 'MaintenanceWindow', name: name('always-off'), reasons: [name('Drifted')], windows: [] },
    ],
  ])('%s', (line, expected) => {
    expect(shape(statement(line))).toEqual(expected);
  });

  it('lowers a pod window with a selector and namespaces', () => {
    const s = statement(
      'pods where tier in (batch, etl) and app = "ml" in namespace data, ml disruptable never ' +
        'during "0 9 * * mon-fri" for 8h',
    );
    expect(shape(s)).toEqual({
      kind: 'PodWindow',
      selector: {
        kind: 'Selector',
        requirements: [
          { kind: 'Requirement', key: name('tier'), operator: 'In', values: [str('batch'), str('etl')] },
          { kind: 'Requirement', key: name('app'), operator: 'In', values: [str('ml')] },
        ],
      },
      namespaces: [name('data'), name('ml')],
      mode: 'never',
      window: { kind: 'Window', schedule: str('0 9 * * mon-fri'), duration: dur('8h') },
    });
  });

  it('lowers every requirement operator, with keywords and numbers as values', () => {
    const s = statement(
      'window w blocks Drifted on nodes where a = x, b == never, c != "y", d notin (1, 5m), e exists, f not exists, !g',
    );
    expect(s.kind === 'MaintenanceWindow' && shape(s.selector?.requirements)).toEqual([
      { kind: 'Requirement', key: name('a'), operator: 'In', values: [str('x')] },
      { kind: 'Requirement', key: name('b'), operator: 'In', values: [str('never')] },
      { kind: 'Requirement', key: name('c'), operator: 'NotIn', values: [str('y')] },
      { kind: 'Requirement', key: name('d'), operator: 'NotIn', values: [str('1'), str('5m')] },
      { kind: 'Requirement', key: name('e'), operator: 'Exists', values: [] },
      { kind: 'Requirement', key: name('f'), operator: 'DoesNotExist', values: [] },
      { kind: 'Requirement', key: name('g'), operator: 'DoesNotExist', values: [] },
    ]);
  });

  it('lowers maintenance windows with several schedules and a node selector', () => {
    const s = statement(
      'window zone-a blocks Underutilized, Drifted on nodes where topology.kubernetes.io/zone in ' +
        '(us-west-2a) during "0 9 * * 1-5" for 8h, nightly in "UTC"',
    );
    expect(s.kind).toBe('MaintenanceWindow');
    if (s.kind !== 'MaintenanceWindow') return;
    expect(shape(s.windows)).toEqual([
      { kind: 'Window', schedule: str('0 9 * * 1-5'), duration: dur('8h') },
      { kind: 'Window', schedule: name('nightly'), timeZone: str('UTC') },
    ]);
    expect(s.selector?.requirements[0]?.key.text).toBe('topology.kubernetes.io/zone');
  });

  it('lowers schedule declarations and both kinds of targets', () => {
    const { value, diagnostics } = parse(
      'schedule nightly = "0 1 * * mon-fri" for 4h in "Europe/Berlin"\n' +
        'policy a for nodepool default, gpu { }\n' +
        'policy spot for nodepools where team = "data" and karpenter.sh/capacity-type != ' +
        '"on-demand" { consolidate never }\n',
    );
    expect(diagnostics).toEqual([]);
    expect(shape(value.schedules)).toEqual([
      {
        kind: 'ScheduleDecl',
        name: name('nightly'),
        cron: str('0 1 * * mon-fri'),
        duration: dur('4h'),
        timeZone: str('Europe/Berlin'),
      },
    ]);
    expect(shape(value.policies.map((p) => p.target))).toEqual([
      { kind: 'NodePoolNames', names: [name('default'), name('gpu')] },
      {
        kind: 'NodePoolSelector',
        selector: {
          kind: 'Selector',
          requirements: [
            { kind: 'Requirement', key: name('team'), operator: 'In', values: [str('data')] },
            {
              kind: 'Requirement',
              key: name('karpenter.sh/capacity-type'),
              operator: 'NotIn',
              values: [str('on-demand')],
            },
          ],
        },
      },
    ]);
  });

  it('gives exact 0-based ranges with offsets', () => {
    const { value } = parse('policy p for nodepool a {\n  consolidate when empty or underutilized after 5m\n}');
    const s = value.policies[0]!.statements[0]!;
    expect(s.range).toEqual({
      start: { line: 1, character: 2, offset: 28 },
      end: { line: 1, character: 50, offset: 76 },
    });
    expect(s.kind === 'Consolidate' && s.policy?.range).toEqual({
      start: { line: 1, character: 19, offset: 45 },
      end: { line: 1, character: 41, offset: 67 },
    });
    expect(value.policies[0]!.range.end).toEqual({ line: 2, character: 1, offset: 78 });
    expect(value.range.end.offset).toBe(78);
  });

  it('accepts soft keywords as policy, nodepool and namespace names', () => {
    const { value, diagnostics } = parse(
      'policy window for nodepool never, pods { pods in namespace schedule disruptable only during x }',
    );
    expect(diagnostics).toEqual([]);
    expect(value.policies[0]!.name.text).toBe('window');
    expect(shape(value.policies[0]!.target)).toEqual({ kind: 'NodePoolNames', names: [name('never'), name('pods')] });
  });
});
