// SPDX-License-Identifier: Apache-2.0
// Per-workload disruption windows (KARPENTER.md#pod-disruption-schedule-proposal): the policy's `pods … disruptable`
// statements and
// the pod annotations karpenter.sh/disruption-schedule(-duration). Answers "is this pod outside
// the time in which it may be disrupted?", with the seed's fallbacks for bad annotations.
import { validateCron } from '../../../rules/cron.js';
import { parseGoDuration } from '../../../rules/duration.js';
import type { PodWindowSpec, PolicySpec, WindowSpec } from '../../../rules/model.js';
import { matchesSelector } from '../../../rules/selector.js';
import { isWindowActive } from '../../../rules/window.js';
import { labelSignature } from '../cluster/labels.js';
import { ANNOTATION_DISRUPTION_SCHEDULE, ANNOTATION_DISRUPTION_SCHEDULE_DURATION, type Pod } from '../cluster/types.js';

const DEFAULT_SECONDS = 3600;
const MIN_SECONDS = 60;
const MAX_SECONDS = 7 * 24 * 3600;

export interface PodWindowBlock {
  window: string; // the statement id or `annotation`
}

/** A problem with a live pod's annotations: becomes a Warning event, never a failure. */
export interface PodWarning {
  pod: string;
  message: string;
}

export type WindowState = boolean | 'error';

type Annotated = { spec?: WindowSpec; warnings: string[] };
type Labelled = PodWindowSpec & { label: string };
const NONE: Labelled[] = [];

/** Parses the two annotations with the seed's rules: bad duration → 1h, bad schedule → fail open. */
export function annotationWindow(schedule: string, duration: string | undefined): Annotated {
  const warnings: string[] = [];
  const cron = validateCron(schedule);
  if (!cron.ok) {
    return {
      warnings: [
        `invalid ${ANNOTATION_DISRUPTION_SCHEDULE} "${schedule}": ${cron.error}; the pod is treated as disruptable`,
      ],
    };
  }
  let seconds = DEFAULT_SECONDS;
  if (duration !== undefined) {
    const parsed = parseGoDuration(duration);
    if (parsed === undefined || parsed < MIN_SECONDS || parsed > MAX_SECONDS) {
      warnings.push(
        `invalid ${ANNOTATION_DISRUPTION_SCHEDULE_DURATION} "${duration}": must be a duration from ` +
          `1m to 168h; using 1h`,
      );
    } else seconds = parsed;
  }
  return { spec: { cron: cron.normalized, durationSeconds: seconds, timeZone: 'UTC' }, warnings };
}

/** Caches, per cluster index and policy, which window statements select which pods. */
export class PodWindowMatcher {
  private readonly bySignature = new Map<string, Labelled[]>();
  private readonly byPod = new WeakMap<Pod, Labelled[]>();
  private readonly splits = new WeakMap<Labelled[], { protections: readonly Labelled[]; windowed: boolean }>();
  private readonly annotations = new Map<string, Annotated>();
  /** Window activity at the last instant asked about: every pod shares one answer per window. */
  private readonly activity = new Map<WindowSpec, boolean>();
  private activityAt = Number.NaN;

  private readonly labelled: Labelled[];
  /**
   * Pod annotations karpenter.sh/disruption-schedule are honoured only for .kpol policies:
   * Karpenter itself ignores them (KARPENTER.md#proposals), so a NodePool evaluated from its own spec
   * must not see them, or `kpol eval` would disagree with Karpenter.
   */
  private readonly annotations_: boolean;

  constructor(policy: PolicySpec) {
    this.annotations_ = policy.origin === 'kpol';
    // Blocked messages name the statement by where it is written, e.g. `team.kpol:12`.
    this.labelled = policy.podWindows.map((w) => ({
      ...w,
      label: w.source ? `${(policy.file ?? policy.name).split('/').pop()}:${w.source.start.line + 1}` : w.id,
    }));
  }

  private matching(pod: Pod): Labelled[] {
    if (this.labelled.length === 0) return NONE;
    const known = this.byPod.get(pod);
    if (known) return known;
    const ns = pod.metadata.namespace ?? 'default';
    const key = ns + '\u0002' + labelSignature(pod.metadata.labels);
    let hit = this.bySignature.get(key);
    if (!hit) {
      hit = this.labelled.filter(
        (w) =>
          (w.namespaces.length === 0 || w.namespaces.includes(ns)) && matchesSelector(pod.metadata.labels, w.selector),
      );
      this.bySignature.set(key, hit);
    }
    this.byPod.set(pod, hit);
    return hit;
  }

  private annotated(pod: Pod): Annotated | undefined {
    const schedule = pod.metadata.annotations?.[ANNOTATION_DISRUPTION_SCHEDULE];
    if (schedule === undefined) return undefined;
    const duration = pod.metadata.annotations?.[ANNOTATION_DISRUPTION_SCHEDULE_DURATION];
    const key = `${schedule}\u0000${duration ?? ''}`;
    let hit = this.annotations.get(key);
    if (!hit) {
      hit = annotationWindow(schedule, duration);
      this.annotations.set(key, hit);
    }
    return hit;
  }

  /** Throws (WindowError) for a window that cannot be evaluated. */
  private active(spec: WindowSpec, nowMs: number): boolean {
    if (nowMs !== this.activityAt) {
      this.activity.clear();
      this.activityAt = nowMs;
    }
    let a = this.activity.get(spec);
    if (a === undefined) {
      a = isWindowActive(spec, nowMs);
      this.activity.set(spec, a);
    }
    return a;
  }

  /** The window's state at an instant: active, inactive, or unevaluable (which holds pods: fail closed). */
  state(spec: WindowSpec, nowMs: number): WindowState {
    try {
      return this.active(spec, nowMs);
    } catch {
      return 'error';
    }
  }

  /**
   * The `pods … never REASONS` statements (no window, always in force) that select the pod, with
   * the label blocked messages name them by.
   */
  protections(pod: Pod): readonly { id: string; label: string }[] {
    return this.split(this.matching(pod)).protections;
  }

  /** A matched list's protections and whether it holds a window, once per distinct list (lists are shared). */
  private split(matched: Labelled[]): { protections: readonly Labelled[]; windowed: boolean } {
    let s = this.splits.get(matched);
    if (!s) {
      s = { protections: matched.filter((w) => !w.window), windowed: matched.some((w) => w.window) };
      this.splits.set(matched, s);
    }
    return s;
  }

  /**
   * Whether `blocks` can hold the pod, or warn about it, at any instant: a window statement selects
   * it, or (for a .kpol policy) it carries a disruption-schedule annotation. When not, `blocks`
   * answers undefined at every instant without a warning or a window read.
   */
  mayBlock(pod: Pod): boolean {
    if (this.annotations_ && pod.metadata.annotations?.[ANNOTATION_DISRUPTION_SCHEDULE] !== undefined) return true;
    return this.split(this.matching(pod)).windowed;
  }

  /**
   * The window that holds the pod now, if any. A window that cannot be evaluated holds it (fail
   * closed). `seen` hears every window whose state the answer depended on: the same answer holds
   * at any other instant at which those windows are in the same states.
   */
  blocks(
    pod: Pod,
    nowMs: number,
    warn: (w: PodWarning) => void,
    seen?: (spec: WindowSpec, state: WindowState) => void,
  ): PodWindowBlock | undefined {
    for (const w of this.matching(pod)) {
      if (!w.window) continue; // pod protection (`never REASONS`): see `protections`
      const active = this.state(w.window, nowMs);
      seen?.(w.window, active);
      if (active === 'error') return { window: w.label };
      if (w.mode === 'only' ? !active : active) return { window: w.label };
    }
    const a = this.annotations_ ? this.annotated(pod) : undefined;
    if (!a) return undefined;
    const name = `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
    for (const message of a.warnings) warn({ pod: name, message });
    if (!a.spec) return undefined;
    const active = this.state(a.spec, nowMs);
    seen?.(a.spec, active);
    // validated by annotationWindow: a bug if reached
    if (active === 'error') throw new Error(`invalid annotation window ${a.spec.cron}`);
    return active ? undefined : { window: 'annotation' };
  }
}
