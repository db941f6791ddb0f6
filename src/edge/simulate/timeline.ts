// SPDX-License-Identifier: Apache-2.0
// What `kpol simulate` records while it steps the real reconciler through simulated time,
// written as timeline.json and rendered into the HTML report. Plain JSON data.
import type { Reason } from '../../../rules/model.js';
import type { HoldCause } from './held-budgets.js';

export interface Sample {
  at: number; // epoch ms
  nodes: number; // Nodes that exist
  nodesByPool: Record<string, number>;
  costPerHour: number; // sum of the running instances' offering prices, USD
  pendingPods: number;
  /** Allowed disruptions per NodePool and reason at this instant (null = unlimited). */
  allowed: Record<string, Partial<Record<Reason, number | null>>>;
}

export interface DisruptionRecord {
  at: number;
  method: string; // Emptiness, Drift, MultiNodeConsolidation, SingleNodeConsolidation, Expiration, Interruption
  reason: string; // Empty, Drifted, Underutilized, Expired, Interrupted
  decision: 'delete' | 'replace';
  nodePool: string;
  nodes: string[];
  replacements: string[]; // instance types launched
}

/** When each reason is allowed during one week, in the policy's time zone, for the calendar. */
export interface CalendarRow {
  nodePool: string;
  reason: Reason;
  timeZone: string;
  /** 7 × 24 cells (Monday first, local hours): the fraction of that hour in which the reason was allowed (> 0). */
  hours: number[];
}

export interface BlockedCount {
  code: string;
  count: number; // node-ticks blocked with this code
  example: string; // one message
}

/** Pool-ticks a NodePool could start no disruption of a reason, by cause (held-budgets.ts). */
export interface HeldCount {
  nodePool: string;
  reason: string;
  cause: HoldCause;
  count: number; // ticks held
  example: string; // the latest message
}

export interface Timeline {
  from: number;
  to: number;
  stepMs: number;
  ticks: number;
  samples: Sample[]; // one per sampling interval (not necessarily every tick)
  disruptions: DisruptionRecord[];
  calendar: CalendarRow[];
  blocked: BlockedCount[];
  held: HeldCount[];
  events: { at: number; type: string; reason: string; object: string; message: string }[];
  summary: {
    disruptionsByReason: Record<string, number>;
    startCostPerHour: number;
    endCostPerHour: number;
    wallSeconds: number;
  };
}
