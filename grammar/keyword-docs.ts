// SPDX-License-Identifier: Apache-2.0
// Hover documentation for every kpol keyword and disruption reason (the language reference,
// rules/README.md, in one or two sentences each). A test checks that every keyword the lexer
// knows has an entry here.

/** Markdown per keyword, with the statement form it belongs to. */
export const KEYWORD_DOCS: Readonly<Record<string, string>> = {
  schedule:
    '`schedule NAME = "CRON" [for D] [in "ZONE"]` — a named window at the top level, usable ' +
    'wherever a window is expected.',
  policy:
    '`policy NAME for nodepool A, B { … }` — the disruption rules for the NodePools it names ' +
    'or selects. A NodePool may be governed by one policy only.',
  cluster:
    '`cluster budget N|N% [for REASONS] [during WINDOW] [on nodepools A, B]` — one budget over the NodePools ' +
    "this file's policies govern (or those named): the fleet as a whole may not exceed it.",
  consolidate:
    '`consolidate when empty [or underutilized] | when balanced [after D]` or `consolidate ' +
    "never` — Karpenter's `consolidationPolicy` and `consolidateAfter`.",
  expire:
    "`expire after D [gracefully]` or `expire never` — `expireAfter` of the NodePool's " +
    'NodeClaims; `gracefully` makes expiration respect budgets as reason `Expired`.',
  termination:
    '`termination grace D` — `terminationGracePeriod`: the longest a draining node waits ' +
    'before pods are force-deleted.',
  timezone: '`timezone "ZONE"` — the IANA zone for windows in this policy that do not name their own with `in`.',
  budget:
    '`budget N|N% [for REASONS] [per reason] [on nodes where SELECTOR] [during WINDOW]` — at most N nodes ' +
    '(or N% of the pool, rounded up) disrupted at once; the most restrictive active budget wins. ' +
    'With `per reason`, each reason counts only the nodes disrupted for it. ' +
    "With `on nodes where`, over the matching nodes of the policy's pools.",
  allow:
    '`allow N|N% [REASONS] only during WINDOW` — disruptions for these reasons happen only ' +
    'inside the window, N at a time; outside it the budget is 0.',
  freeze:
    '`freeze [REASONS] from "T1" to "T2" [in "ZONE"]` — a one-off period in which these ' +
    'reasons are not allowed at all.',
  pods:
    '`pods [where SELECTOR] [in namespace NS] disruptable only|never during WINDOW` — nodes running matching pods ' +
    'may be disrupted only inside (or never inside) the window; `pods … never REASONS` — never for these reasons ' +
    '(e.g. `never Underutilized`), other reasons allowed.',
  window:
    '`window NAME blocks REASONS [on nodes where SELECTOR] [during WINDOW, …]` — a maintenance ' +
    'window that blocks the reasons on matching nodes while active.',
  nodepools: '`nodepools A, B` or `nodepools where SELECTOR` — the NodePools a policy governs.',
  nodepool: '`nodepool A` — the NodePool a policy governs.',
  namespace: '`in namespace NS, …` — restricts a pod window to pods in these namespaces.',
  nodes: '`on nodes where SELECTOR` — restricts a maintenance window, or a budget, to the nodes whose labels match.',
  never:
    '`never` — turns the setting off: `consolidate never`, `expire never`, `after never`, ' +
    '`disruptable never during`, or `pods … never REASONS`.',
  empty: '`when empty` — consolidate only nodes with no pods other than DaemonSet pods (`WhenEmpty`).',
  underutilized:
    '`when empty or underutilized` — also consolidate nodes whose pods fit elsewhere (`WhenEmptyOrUnderutilized`).',
  balanced: '`when balanced` — consolidate only when the saving is worth the disruption (score gate; `Balanced`).',
  gracefully: '`expire after D gracefully` — expiration waits for budgets like other reasons, as reason `Expired`.',
  grace: '`termination grace D` — see `termination`.',
  exists: '`KEY exists` / `KEY not exists` — a label requirement on the presence of a key.',
  per:
    '`budget … per reason` — each reason of the budget is an independent bucket: it counts only the nodes ' +
    'disrupted for that reason (and those of unknown reason), not every disrupting node.',
  reason: '`per reason` — see `per`.',
  disruptable: '`pods … disruptable only|never during WINDOW` — when nodes carrying these pods may be disrupted.',
  during:
    '`during WINDOW` — a cron schedule or schedule name, with `for D` and `in "ZONE"`: active on `[hit, hit + D)`.',
  blocks: '`window NAME blocks REASONS` — the reasons a maintenance window blocks while active.',
  where:
    '`where SELECTOR` — label requirements joined by `and`: `KEY = V`, `KEY != V`, `KEY in ' +
    '(…)`, `KEY notin (…)`, `KEY exists`.',
  notin: '`KEY notin (V, …)` — the label is absent or has none of these values.',
  after:
    '`after D` or `after never` — how long a node must be consolidatable (or alive, for ' +
    '`expire`) before it is acted on.',
  when: '`consolidate when empty | empty or underutilized | balanced` — the consolidation policy.',
  only: '`allow … only during WINDOW` / `disruptable only during WINDOW` — allowed inside the window and nowhere else.',
  from: '`freeze … from "T1" to "T2"` — the start of a freeze (local time in the freeze\'s zone, or RFC 3339).',
  for: "`policy NAME for nodepool …`, `budget N for REASONS`, or a window's `for D` duration.",
  and: '`A and B` — both requirements must hold; also `empty or underutilized` uses `or`.',
  not: '`KEY not exists` — the label key is absent.',
  in: '`in "ZONE"` (a window\'s IANA time zone), `in namespace NS`, or `KEY in (V, …)` in a selector.',
  or: '`when empty or underutilized` — consolidate empty and underutilized nodes.',
  on:
    '`… on nodes where SELECTOR` — the nodes a maintenance window or budget applies to; ' +
    '`cluster budget … on nodepools A, B` — the NodePools a cluster budget covers.',
  to: '`freeze … from "T1" to "T2"` — the end of a freeze (exclusive).',
};

/** Markdown per disruption reason. */
export const REASON_DOCS: Readonly<Record<string, string>> = {
  Empty: '`Empty` — a node with no pods other than DaemonSet pods, after `consolidateAfter`.',
  Drifted: '`Drifted` — a node whose NodeClaim no longer matches its NodePool (template hash, requirements).',
  Underutilized: '`Underutilized` — a node whose pods fit on other nodes (or a cheaper replacement).',
  Expired: '`Expired` — a node older than `expire after`; counted against budgets only when `gracefully`.',
};

/** The words `consolidate when …` takes, with Karpenter's name for each. */
export const CONSOLIDATION_POLICIES: readonly { text: string; detail: string }[] = [
  { text: 'empty', detail: 'WhenEmpty' },
  { text: 'empty or underutilized', detail: 'WhenEmptyOrUnderutilized' },
  { text: 'balanced', detail: 'Balanced' },
];
