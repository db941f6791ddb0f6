// SPDX-License-Identifier: Apache-2.0
// The status page beside `per reason` buckets: the disrupting count says which reasons the
// disrupting nodes are disrupted for, since each bucket counts only its own (and the unknown).
import { describe, expect, it } from 'vitest';
import type { StatusView } from '../../src/control/runtime/status-source.js';
import { renderStatusPage } from '../../src/edge/server/status-page.js';

const view = (pool: StatusView['nodePools'][string]): StatusView =>
  ({
    at: '2026-01-05T09:00:00.000Z',
    clockSpeed: 1,
    nodePools: { web: pool },
    nodes: [],
    decisions: [],
    events: [],
  }) as unknown as StatusView;

describe('status page: disrupting by reason', () => {
  it('shows the reasons only for a pool with buckets', () => {
    const base = { policy: 'reason-buckets.kpol', nodes: 8, disrupting: 2, allowed: { Drifted: 1 } };
    const html = renderStatusPage(view({ ...base, disruptingByReason: { Drifted: 1, unknown: 1 } }));
    expect(html).toContain('<td class="num">2 <small>(Drifted 1, unknown 1)</small></td>');
    expect(renderStatusPage(view(base))).toContain('<td class="num">2</td>');
  });
});
