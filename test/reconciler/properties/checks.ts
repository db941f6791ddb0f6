// SPDX-License-Identifier: Apache-2.0
// The four properties as pure functions over a recorded trace: each returns the violations it
// found (empty = the property held). Kept pure so that the negative controls can feed them
// fabricated traces and prove they do fail.
import type { Reason } from '../../../rules/model.js';
import type { Pod } from '../../../src/core/cluster/types.js';
import type { NcObs, StartObs, TickObs, Trace } from './harness.js';
import { goDurationMs, windowActive, type CaseSpec, type PolicyGen } from './model.js';

const EVENTUAL: ReadonlySet<Reason> = new Set(['Drifted', 'Expired']);

/**
 * Nodes voluntarily disrupted after tick `tk`, keyed by NodeClaim, counted the way Karpenter
 * counts disrupting nodes (KARPENTER.md#budget-counting): a managed, initialized Node exists and the NodeClaim is not
 * InstanceTerminating. A NodeClaim is voluntarily disrupted while it is a candidate of an
 * in-flight command, or deleting after being a candidate of a command that was not rolled back.
 */
function voluntary(
  tk: TickObs,
  tracked: Map<string, { reason: Reason; pool: string }>,
): Map<string, { reason: Reason; pool: string }> {
  const out = new Map<string, { reason: Reason; pool: string }>();
  const inflight = new Map<string, { reason: Reason; pool: string }>();
  for (const c of tk.inflight)
    for (const x of c.candidates) inflight.set(x.nodeClaim, { reason: c.reason, pool: x.nodePool });
  const ncs = new Map(tk.ncs.map((n) => [n.name, n]));
  // A tracked candidate that is neither in flight nor deleting was rolled back: forget it.
  for (const [name] of tracked) if (!inflight.has(name) && !ncs.get(name)?.deleting) tracked.delete(name);
  for (const [name, v] of [...tracked, ...inflight]) {
    const nc = ncs.get(name);
    if (!nc || nc.instanceTerminating) continue;
    const node = tk.nodes.find((n) => (nc.providerID && n.providerID === nc.providerID) || n.name === nc.nodeName);
    if (!node?.initialized) continue;
    out.set(name, inflight.get(name) ?? v);
  }
  return out;
}

const count = <T>(xs: Iterable<T>, pred: (x: T) => boolean) => {
  let n = 0;
  for (const x of xs) if (pred(x)) n++;
  return n;
};

/**
 * Property 1: a started command never takes more candidates of a pool than the pool's
 * allowance for its reason at that tick, the nodes already disrupting when it started are no
 * more than the evaluation counted, and at every tick the nodes voluntarily disrupted for a
 * reason in a pool stay within what the last start allowed (disrupting + allowed then).
 */
export function checkBudgets(trace: Pick<Trace, 'ticks' | 'starts'>): string[] {
  const bad: string[] = [];
  const tracked = new Map<string, { reason: Reason; pool: string }>();
  const bound = new Map<string, number>(); // `${pool}/${reason}` → disrupting + allowed at the last start
  let prev = new Map<string, { reason: Reason; pool: string }>();
  for (const tk of trace.ticks) {
    for (const st of trace.starts.filter((s) => s.i === tk.i)) {
      const { reason, candidates, id } = st.command;
      const pools = new Set(candidates.map((c) => c.nodePool));
      for (const p of pools) {
        const n = count(candidates, (c) => c.nodePool === p);
        const res = st.pools[p];
        const allowed = res?.allowed[reason];
        const cap = allowed === null ? Infinity : (allowed ?? 0);
        if (n > cap)
          bad.push(
            `tick ${tk.i}: ${id} (${st.command.method}/${reason}) took ${n} nodes of pool ${p}, allowed ${allowed}`,
          );
        const before = count(prev.values(), (v) => v.pool === p);
        if (before > (res?.disrupting ?? 0))
          bad.push(
            `tick ${tk.i}: pool ${p} had ${before} nodes voluntarily disrupted before ${id} started, ` +
              `the evaluation counted ${res?.disrupting ?? 0} disrupting`,
          );
        bound.set(`${p}/${reason}`, (res?.disrupting ?? 0) + cap);
      }
      for (const c of candidates) tracked.set(c.nodeClaim, { reason, pool: c.nodePool });
    }
    const now = voluntary(tk, tracked);
    const groups = new Map<string, string[]>();
    for (const [name, v] of now)
      groups.set(`${v.pool}/${v.reason}`, [...(groups.get(`${v.pool}/${v.reason}`) ?? []), name]);
    for (const [key, names] of groups) {
      const b = bound.get(key);
      if (b === undefined)
        bad.push(`tick ${tk.i}: ${names.join(', ')} voluntarily disrupted (${key}) with no command started for it`);
      else if (names.length > b)
        bad.push(
          `tick ${tk.i}: ${names.length} nodes voluntarily disrupted for ${key} ` +
            `(${names.join(', ')}), the last start allowed ${b}`,
        );
    }
    prev = now;
  }
  return bad;
}

/**
 * Property 5 (issue 15): at every tick, the nodes voluntarily disrupted for a cluster or selector
 * budget's reasons inside its scope are at most its count. Decided from the case alone (which
 * pools and zones the scope holds), not from kpol's evaluation. A start needs room in the scope,
 * and the scope's disrupting count includes every voluntary node, so the bound holds at all times.
 */
export function checkScopedBudgets(trace: Pick<Trace, 'spec' | 'ticks' | 'starts'>): string[] {
  const bad: string[] = [];
  const governed = trace.spec.policies.flatMap((p) => p.pools);
  const scopes: { name: string; nodes: number; reasons?: Reason[]; pools: string[]; zones?: string[] }[] = [];
  const cb = trace.spec.clusterBudget;
  if (cb && trace.spec.policies.length > 0) scopes.push({ name: 'cluster budget', ...cb, pools: cb.pools ?? governed });
  for (const p of trace.spec.policies)
    for (const z of p.zoneBudgets ?? []) scopes.push({ name: `${p.name} zone budget`, ...z, pools: p.pools });
  if (scopes.length === 0) return bad;
  const tracked = new Map<string, { reason: Reason; pool: string }>();
  for (const tk of trace.ticks) {
    for (const st of trace.starts.filter((s) => s.i === tk.i))
      for (const c of st.command.candidates) tracked.set(c.nodeClaim, { reason: st.command.reason, pool: c.nodePool });
    const now = voluntary(tk, tracked);
    const ncs = new Map(tk.ncs.map((n) => [n.name, n]));
    const zoneOf = (name: string) => {
      const nc = ncs.get(name);
      return tk.nodes.find((n) => (nc?.providerID && n.providerID === nc.providerID) || n.name === nc?.nodeName)?.zone;
    };
    for (const sc of scopes) {
      const inside = [...now].filter(
        ([name, v]) =>
          sc.pools.includes(v.pool) &&
          (!sc.reasons?.length || sc.reasons.includes(v.reason)) &&
          (!sc.zones || sc.zones.includes(zoneOf(name) ?? '')),
      );
      if (inside.length > sc.nodes)
        bad.push(
          `tick ${tk.i}: ${inside.length} nodes voluntarily disrupted in ${sc.name} ${sc.nodes}` +
            `${sc.reasons?.length ? ` for ${sc.reasons.join(', ')}` : ''} over ${sc.pools.join(', ')}` +
            `${sc.zones ? ` in ${sc.zones.join(', ')}` : ''}: ` +
            inside.map(([n, v]) => `${n} (${v.pool}/${v.reason})`).join(', '),
        );
    }
  }
  return bad;
}

/** The `per reason` budgets of the pool's policy that apply to the reason and are active at `t`, with their cap. */
function bucketsInForce(spec: Pick<CaseSpec, 'policies'>, pool: string, reason: Reason, t: number, nodes: number) {
  return (governing(spec, pool)?.budgets ?? [])
    .filter((b) => b.kind === 'budget' && b.perReason && (!b.reasons?.length || b.reasons.includes(reason)))
    .filter((b) => !b.window || windowActive(b.window, t))
    .map((b) => ({
      b,
      cap: b.nodes.endsWith('%') ? Math.ceil((Number(b.nodes.slice(0, -1)) * nodes) / 100) : Number(b.nodes),
    }));
}

/**
 * Property 5 (issue 15): no `per reason` bucket is ever exceeded. Independent of the evaluation's
 * numbers: from the generated policy, at each start of a command for reason R in pool P, every
 * bucket budget of P's policy that applies to R and is active then (its window, from the model)
 * must still hold the nodes already voluntarily disrupted for R in P plus the command's candidates
 * of P. The evaluation also counts unknown-reason nodes against the bucket, which only tightens it.
 */
export function checkBuckets(trace: Pick<Trace, 'spec' | 'ticks' | 'starts'>): string[] {
  const bad: string[] = [];
  const tracked = new Map<string, { reason: Reason; pool: string }>();
  let prev = new Map<string, { reason: Reason; pool: string }>();
  for (const tk of trace.ticks) {
    const running = new Map<string, number>(); // `${pool}/${reason}` → disrupted before the next start
    for (const v of prev.values())
      running.set(`${v.pool}/${v.reason}`, (running.get(`${v.pool}/${v.reason}`) ?? 0) + 1);
    for (const st of trace.starts.filter((s) => s.i === tk.i)) {
      const { reason, candidates, id } = st.command;
      for (const p of new Set(candidates.map((c) => c.nodePool))) {
        const n = count(candidates, (c) => c.nodePool === p);
        const before = running.get(`${p}/${reason}`) ?? 0;
        const nodes = st.pools[p]?.nodes ?? 0;
        const over = bucketsInForce(trace.spec, p, reason, st.t, nodes).filter(({ cap }) => before + n > cap);
        for (const { b, cap } of over)
          bad.push(
            `tick ${tk.i}: ${id} (${st.command.method}/${reason}) took ${n} nodes of pool ${p} ` +
              `with ${before} already disrupted for ${reason}: bucket \`budget ${b.nodes} per reason\` holds ${cap}`,
          );
        running.set(`${p}/${reason}`, before + n);
      }
      for (const c of candidates) tracked.set(c.nodeClaim, { reason, pool: c.nodePool });
    }
    prev = voluntary(tk, tracked);
  }
  return bad;
}

const podActive = (p: Pod) =>
  p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && !p.metadata.deletionTimestamp;

/**
 * KARPENTER.md#pod-predicates: "true" forever; a positive duration from status.startTime (nil start → active); anything
 * else ignored.
 */
export function doNotDisruptActive(p: Pod, now: number): boolean {
  const v = p.metadata.annotations?.['karpenter.sh/do-not-disrupt'];
  if (v === undefined) return false;
  if (v === 'true') return true;
  const d = goDurationMs(v);
  if (d === undefined || d <= 0) return false;
  const start = p.status?.startTime ? Date.parse(p.status.startTime) : undefined;
  return start === undefined || now - start < d;
}

export const governing = (spec: Pick<CaseSpec, 'policies'>, pool: string): PolicyGen | undefined =>
  spec.policies.find((p) => p.pools.includes(pool));

/**
 * Whether a pod's disruption window holds it at `now` (policy statements, then its annotations; governed pools only).
 */
export function podWindowHolds(
  spec: Pick<CaseSpec, 'policies' | 'replicaSets'>,
  policy: PolicyGen | undefined,
  p: Pod,
  now: number,
): string | undefined {
  if (!policy) return undefined;
  const app = p.metadata.labels?.app;
  for (const w of policy.podWindows) {
    if (w.app !== app) continue;
    const active = windowActive(w.window, now);
    if (w.mode === 'only' ? !active : active) return `pod window ${w.mode} for app=${app}`;
  }
  const rs = spec.replicaSets.find((r) => r.name === app);
  if (rs?.schedule && p.metadata.annotations?.['karpenter.sh/disruption-schedule'] && !windowActive(rs.schedule, now))
    return 'disruption-schedule annotation';
  return undefined;
}

/**
 * Property 2: at the instant a command started, none of its candidates had a bound active pod
 * with an active do-not-disrupt or outside its disruption window (unless the reason is eventual
 * and a terminationGracePeriod applies), nor an active maintenance window blocking the reason;
 * and the rule graph listed the node as a candidate for the reason.
 */
export function checkHolds(trace: Pick<Trace, 'spec' | 'starts'>): string[] {
  const bad: string[] = [];
  for (const st of trace.starts) {
    const { reason, id, method } = st.command;
    for (const c of st.command.candidates) {
      const where = `tick ${st.i} ${new Date(st.t).toISOString()}: ${id} (${method}/${reason}) took ${c.node}`;
      const verdict = st.verdicts[c.node];
      if (!verdict?.reasons.includes(reason))
        bad.push(
          `${where} but the evaluation lists it for [${verdict?.reasons.join(', ') ?? 'nothing'}] ` +
            `(blocked: ${verdict?.blocked.map((b) => b.code).join(', ')})`,
        );
      const policy = governing(trace.spec, c.nodePool);
      const nc = st.nodeClaims.find((n) => n.metadata.name === c.nodeClaim);
      const tgp = !!nc?.spec.terminationGracePeriod || policy?.graceMin !== undefined;
      const exempt = EVENTUAL.has(reason) && tgp;
      for (const p of st.pods.filter((x) => x.spec.nodeName === c.node && podActive(x))) {
        if (exempt) continue;
        if (doNotDisruptActive(p, st.t))
          bad.push(
            `${where} with pod ${p.metadata.name} under an active do-not-disrupt ` +
              `(${p.metadata.annotations?.['karpenter.sh/do-not-disrupt']}, ` +
              `started ${p.status?.startTime})`,
          );
        const held = podWindowHolds(trace.spec, policy, p, st.t);
        if (held) bad.push(`${where} with pod ${p.metadata.name} outside its disruption window (${held})`);
      }
      const node = st.nodes.find((n) => n.metadata.name === c.node);
      const zone = node?.metadata.labels?.['topology.kubernetes.io/zone'];
      for (const m of policy?.maintenance ?? []) {
        if (
          m.reasons.includes(reason) &&
          zone &&
          m.zones.includes(zone) &&
          (!m.window || windowActive(m.window, st.t))
        ) {
          bad.push(`${where} in ${zone} during maintenance window ${m.name}`);
        }
      }
    }
  }
  return bad;
}

/**
 * Property 3: for a command with replacements, no candidate NodeClaim gets a deletionTimestamp
 * before every replacement it launched is Initialized (unless something forceful — expiration,
 * interruption — deleted it). Checked on the timestamps themselves, not on tick order.
 */
export function checkReplacementsFirst(trace: Pick<Trace, 'ticks' | 'starts'>): string[] {
  const bad: string[] = [];
  for (const st of trace.starts) {
    if (st.command.launched.length === 0) continue;
    const lastSeen = new Map<string, NcObs>();
    const pending = new Set(st.command.candidates.map((c) => c.nodeClaim));
    for (const tk of trace.ticks.filter((x) => x.i >= st.i)) {
      const ncs = new Map(tk.ncs.map((n) => [n.name, n]));
      for (const r of st.command.launched) if (ncs.has(r)) lastSeen.set(r, ncs.get(r)!);
      const inflight = tk.inflight.some((c) => c.id === st.command.id);
      for (const name of [...pending]) {
        const nc = ncs.get(name);
        const stillThere = nc !== undefined && !nc.deleting;
        if (stillThere && !inflight) pending.delete(name); // rolled back: the command no longer holds it
        if (stillThere) continue;
        pending.delete(name);
        if (tk.expired.includes(name) || tk.interrupted.includes(name)) continue;
        const at = nc?.deleting ?? tk.t;
        const early = st.command.launched.filter((r) => {
          const initializedAt = lastSeen.get(r)?.initializedAt;
          return initializedAt === undefined || initializedAt > at;
        });
        for (const r of early) {
          const initializedAt = lastSeen.get(r)?.initializedAt;
          const state =
            initializedAt === undefined
              ? 'is not initialized'
              : `initialized only at ${new Date(initializedAt).toISOString()}`;
          bad.push(
            `tick ${tk.i}: ${st.command.id} candidate ${name} deleting ` +
              `at ${new Date(at).toISOString()} but replacement ${r} ${state}`,
          );
        }
      }
      if (pending.size === 0) break;
    }
  }
  return bad;
}

/**
 * Property 4: once a NodeClaim or its Node is gone, its instance is gone (at every tick); at the end no
 * instance is orphaned — the simulator's own orphan report is empty and every pending or
 * running instance belongs to an existing NodeClaim.
 */
export function checkInstances(trace: Pick<Trace, 'ticks' | 'final'>): string[] {
  const bad: string[] = [];
  const everSeen = new Map<string, string>(); // `NodeClaim x` / `Node y` → providerID
  const gone = new Map<string, string>(); // providerID → its NodeClaim or Node, once that is gone
  const reported = new Set<string>();
  const goneCheck = (where: string, instances: readonly { providerID: string; state: string }[]) => {
    for (const x of instances) {
      const name = gone.get(x.providerID);
      if (name === undefined || reported.has(x.providerID)) continue;
      reported.add(x.providerID);
      bad.push(`${where}: ${name} is gone but its instance ${x.providerID} is still ${x.state}`);
    }
  };
  for (const tk of trace.ticks) {
    const live = new Set([...tk.ncs.map((n) => `NodeClaim ${n.name}`), ...tk.nodes.map((n) => `Node ${n.name}`)]);
    for (const [name, pid] of everSeen) {
      if (live.has(name)) continue;
      if (!gone.has(pid)) gone.set(pid, name);
      everSeen.delete(name);
    }
    goneCheck(`tick ${tk.i}`, tk.instances);
    for (const n of tk.ncs) if (n.providerID) everSeen.set(`NodeClaim ${n.name}`, n.providerID);
    for (const n of tk.nodes) if (n.providerID) everSeen.set(`Node ${n.name}`, n.providerID);
  }
  goneCheck('end', trace.final.instances);
  const owned = new Set(trace.final.ncs.map((n) => n.providerID).filter(Boolean));
  for (const pid of trace.final.orphans) bad.push(`end: the cloud reports ${pid} orphaned`);
  for (const x of trace.final.instances) {
    if ((x.state === 'running' || x.state === 'pending') && !owned.has(x.providerID))
      bad.push(`end: instance ${x.providerID} is ${x.state} with no NodeClaim`);
  }
  return bad;
}

export type { StartObs };

/**
 * Property 5 (issue 15): no start takes a pool past any of its rate budgets. At each start, the
 * candidates of the pool started for a reason a rate budget `N per D` covers within `(t − D, t]` —
 * this start's included, from the trace alone, not from kpol's record — are at most N (a
 * percentage of the pool's counted nodes at that start, rounded up).
 */
export function checkRates(trace: Pick<Trace, 'spec' | 'starts'>): string[] {
  const bad: string[] = [];
  for (const st of trace.starts) {
    for (const pool of new Set(st.command.candidates.map((c) => c.nodePool))) {
      for (const b of governing(trace.spec, pool)?.budgets ?? []) {
        if (b.perMin === undefined) continue;
        const covers = (r: Reason) => !b.reasons?.length || b.reasons.includes(r);
        if (!covers(st.command.reason)) continue;
        const since = st.t - b.perMin * 60_000;
        const started = trace.starts
          .filter((x) => x.t > since && x.t <= st.t && covers(x.command.reason))
          .reduce((n, x) => n + count(x.command.candidates, (c) => c.nodePool === pool), 0);
        const nodes = st.pools[pool]?.nodes ?? 0;
        const limit = b.nodes.endsWith('%') ? Math.ceil((Number(b.nodes.slice(0, -1)) * nodes) / 100) : Number(b.nodes);
        if (started > limit)
          bad.push(
            `tick ${st.i} ${new Date(st.t).toISOString()}: ${st.command.id} ` +
              `(${st.command.method}/${st.command.reason}) ` +
              `made ${started} starts in pool ${pool} within ${b.perMin}m, rate budget ${b.nodes} per ${b.perMin}m`,
          );
      }
    }
  }
  return bad;
}
