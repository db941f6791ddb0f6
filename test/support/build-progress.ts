// SPDX-License-Identifier: Apache-2.0
// Progress for the long from-source builds the k8s and karpenter tests need once
// (test/k8s/control-plane/build.sh, test/k8s/karpenter/build.sh): the scripts' own lines are
// shown as they come, Go's (`go build -v` names each package it compiles, `go: downloading`
// each module it fetches) are counted instead, and every so often one line says how long it has
// been running, which step it is in and how far that step has got.
import { spawn } from 'node:child_process';

const formatElapsed = (ms: number): string => {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

/**
 * `$ /usr/local/go/bin/go build -trimpath … k8s.io/kubernetes/cmd/kubectl` → `go build kubectl`; `-o …/etcd …` → `go
 * build etcd`.
 */
export function describeStep(command: string): string {
  const words = command.trim().split(/\s+/);
  const go = words.findIndex((w) => /(^|\/)go$/.test(w));
  if (go < 0)
    return words
      .slice(0, 2)
      .map((w) => w.split('/').at(-1))
      .join(' ');
  const verb = words
    .slice(go + 1)
    .filter((w) => /^[a-z]+$/.test(w))
    .slice(0, words[go + 1] === 'mod' ? 2 : 1);
  const skip = new Set<number>();
  words.forEach((w, i) => {
    if (w === '-o' || w === '-ldflags') skip.add(i + 1);
  });
  // `-o DIR/NAME` names the one binary; otherwise each package's last path element does.
  const out = words[words.indexOf('-o') + 1];
  const targets =
    words.includes('-o') && out && !out.endsWith('/')
      ? [out.split('/').at(-1)!]
      : words
          .slice(go + 1)
          .filter(
            (w, i) =>
              !skip.has(go + 1 + i) && !w.startsWith('-') && !w.startsWith('/') && !w.includes('=') && w.includes('/'),
          )
          .map((w) => w.replace(/@.*$/, '').split('/').at(-1)!);
  return ['go', ...verb].join(' ') + (targets.length ? ` ${targets.join(', ')}` : '');
}

export class BuildProgress {
  private readonly started: number;
  private step = 'starting';
  private packages = 0;
  private downloads = 0;
  private total: number | undefined;
  /** Said just before the step it is about ("go build: up to N packages…"). */
  private nextTotal: number | undefined;
  private latest: string | undefined;

  /** `prefix`: the script's own prefix (`k8s-build`); its lines are shown, Go's counted. */
  constructor(
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    this.started = now();
  }

  /** One line the build printed; returns what to show of it now. */
  line(raw: string): string[] {
    const text = raw.trimEnd();
    if (!text.trim()) return [];
    if (text.startsWith(`${this.prefix}: `)) {
      const said = text.slice(this.prefix.length + 2);
      if (said.startsWith('$ ')) {
        this.step = describeStep(said.slice(2));
        this.packages = 0;
        this.downloads = 0;
        this.latest = undefined;
        this.total = this.nextTotal;
        this.nextTotal = undefined;
      }
      const total = /up to (\d+) packages/.exec(said);
      if (total && Number(total[1]) > 0) this.nextTotal = Number(total[1]);
      return [text];
    }
    if (text.startsWith('go: downloading ')) {
      this.downloads++;
      return [];
    }
    // `go build -v`: one package path per line. Anything else (errors, warnings) is shown.
    if (/^[\w.~-]+(\/[\w.~+-]+)*$/.test(text.trim())) {
      this.packages++;
      this.latest = text.trim();
      return [];
    }
    return [text];
  }

  /** The periodic line. */
  summary(): string {
    const parts = [
      `${this.prefix}: still building, ${formatElapsed(this.now() - this.started)} elapsed; step: ${this.step}`,
    ];
    if (this.packages > 0)
      parts.push(
        `${this.packages}${this.total ? ` of at most ${this.total}` : ''} packages compiled (latest ${this.latest})`,
      );
    if (this.downloads > 0) parts.push(`${this.downloads} modules downloaded`);
    return parts.join(', ');
  }
}

/** How often the summary line is printed: KPOL_BUILD_PROGRESS_SECONDS, default 30. */
export function progressEveryMs(env: Record<string, string | undefined> = process.env): number {
  const s = Number(env.KPOL_BUILD_PROGRESS_SECONDS);
  return (Number.isFinite(s) && s > 0 ? s : 30) * 1000;
}

/**
 * Runs `bash script`, showing its own lines as they come and a summary every
 * progressEveryMs(); resolves with its exit code (or the signal that ended it).
 */
export async function runBuildScript(
  script: string,
  prefix: string,
  log: (line: string) => void,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }> {
  const progress = new BuildProgress(prefix);
  const child = spawn('bash', [script], { stdio: ['ignore', 'pipe', 'pipe'] });
  const pending = { out: '', err: '' };
  const feed = (which: 'out' | 'err') => (d: Buffer) => {
    const lines = (pending[which] + d.toString()).split('\n');
    pending[which] = lines.pop()!;
    for (const l of lines) for (const shown of progress.line(l)) log(shown);
  };
  child.stdout.on('data', feed('out'));
  child.stderr.on('data', feed('err'));
  const timer = setInterval(() => log(progress.summary()), progressEveryMs());
  try {
    return await new Promise((resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, error }));
      child.once('close', (code, signal) => {
        for (const rest of [pending.out, pending.err]) for (const shown of progress.line(rest)) log(shown);
        resolve({ code, signal });
      });
    });
  } finally {
    clearInterval(timer);
  }
}
