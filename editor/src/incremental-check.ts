// SPDX-License-Identifier: Apache-2.0
// The worker's check, redone only where the text changed. Each file is cut into pieces and
// parsed piecewise (chunked-parse.ts). The checker's `policy` stages (rules/checks/check.ts) run once
// per piece text, in the piece's own frame, and their reports are kept and moved into place;
// the `file` and `all` stages run on every call. The answer is checkAll's for the whole texts,
// report for report: reports are gathered stage by stage, as checkAll makes them, because the
// final sort keeps ties in that order.
import type { PolicyFile, Range } from '../../grammar/ast.js';
import { limitDiagnostics } from '../../grammar/diagnostic-limit.js';
import { sortDiagnostics, type Diagnostic } from '../../grammar/diagnostic.js';
import { parse } from '../../grammar/parse.js';
import { checkAll, newScope, newUnit, settleDiagnostics, STAGES, type CheckOptions } from '../../rules/checks/check.js';
import type { CheckContext, FileScope, Stage } from '../../rules/checks/context.js';
import { ChunkedParser, joinPieces, type ParsedPiece, type PieceParse } from './chunked-parse.js';
import { shifted } from './shift-positions.js';

export interface SourceText {
  fileName: string;
  text: string;
}

/** The policies of one piece after the `policy` stages, every range in the piece's frame. */
export interface PieceCheck {
  /** What each stage reported, in STAGES order (nothing for stages of another reach). */
  byStage: Diagnostic[][];
  usedSchedules: string[];
  /** False when a report lies outside the piece (at a named schedule's duration): it holds only for this layout. */
  movable: boolean;
}

/** A file in clean pieces, and its schedule declarations where they lie. */
export interface FilePieces {
  fileName: string;
  pieces: ParsedPiece[];
  scope: FileScope;
  /** Everything but its own text that a piece's reports can depend on: file name, clock, schedule declarations. */
  context: string;
}

const EMPTY: PolicyFile = parse('').value;

export class IncrementalChecker {
  private readonly parsers = new Map<string, ChunkedParser>();
  // By context, then by piece text: the piece's own string, already hashed by the parser's cache.
  private cache = new Map<string, Map<string, PieceCheck>>();
  /** Pieces that went through the `policy` stages in the last call; for tests and the benchmark. */
  lastChecked = 0;

  /**
   * Each source's diagnostics, parse then check, exactly as src/core/policy/load.ts reports them: at
   * most MAX_DIAGNOSTICS per file, so the markers of a pasted megabyte stay few.
   */
  check(sources: readonly SourceText[], options: CheckOptions = {}): Diagnostic[][] {
    const splits = sources.map((s) => this.parser(s.fileName).parsePieces(s.text));
    this.lastChecked = 0;
    if (splits.some((s) => 'whole' in s)) return this.checkWhole(sources, splits, options);
    const files = sources.map((s, i) =>
      filePieces(s.fileName, (splits[i] as { pieces: ParsedPiece[] }).pieces, options),
    );
    const next = new Map<string, Map<string, PieceCheck>>();
    const checks = files.map((f) => f.pieces.map((p) => this.pieceCheck(f, p, options, next)));
    this.cache = next;
    files.forEach((f, fi) => checks[fi].forEach((c) => c.usedSchedules.forEach((n) => f.scope.usedSchedules.add(n))));
    const reported = files.map((): Diagnostic[] => []);
    STAGES.forEach((stage, i) => {
      const out =
        stage.reach === 'policy'
          ? files.map((f, fi) => f.pieces.flatMap((p, pi) => checks[fi][pi].byStage[i].map((d) => moved(d, p))))
          : runPlaced(stage, files, options);
      out.forEach((d, fi) => reported[fi].push(...d));
    });
    return reported.map((d) => limitDiagnostics(settleDiagnostics(d)).diagnostics);
  }

  /**
   * What a piece's check is cached under: its file's context and its text. Protected so that tests can plant a wrong
   * key.
   */
  protected pieceKey(f: FilePieces, piece: ParsedPiece): [context: string, text: string] {
    return [f.context, piece.text];
  }

  private parser(fileName: string): ChunkedParser {
    let p = this.parsers.get(fileName);
    if (!p) this.parsers.set(fileName, (p = new ChunkedParser()));
    return p;
  }

  /** The plain path, for text with syntax errors: whole files, checked together. */
  private checkWhole(sources: readonly SourceText[], splits: PieceParse[], options: CheckOptions): Diagnostic[][] {
    this.cache.clear();
    this.lastChecked = sources.length;
    const parsed = splits.map((s) => ('whole' in s ? s.whole : { value: joinPieces(s.pieces), diagnostics: [] }));
    const checked = checkAll(
      sources.map((s, i) => ({ fileName: s.fileName, file: parsed[i].value })),
      options,
    );
    return parsed.map((p, i) => {
      const all = sortDiagnostics([...p.diagnostics, ...checked.files[i].diagnostics]);
      return limitDiagnostics(all).diagnostics;
    });
  }

  private pieceCheck(
    f: FilePieces,
    piece: ParsedPiece,
    options: CheckOptions,
    next: Map<string, Map<string, PieceCheck>>,
  ): PieceCheck {
    if (piece.parsed.value.policies.length === 0) return NOTHING;
    const [context, text] = this.pieceKey(f, piece);
    let kept = next.get(context);
    if (!kept) next.set(context, (kept = new Map()));
    const known = this.cache.get(context)?.get(text) ?? kept.get(text);
    if (known) {
      kept.set(text, known);
      return known;
    }
    this.lastChecked++;
    const c = checkPiece(f, piece, options);
    if (c.movable) kept.set(text, c);
    return c;
  }
}

const NOTHING: PieceCheck = { byStage: STAGES.map(() => []), usedSchedules: [], movable: true };

function filePieces(fileName: string, pieces: ParsedPiece[], options: CheckOptions): FilePieces {
  const declaring = pieces.filter((p) => p.parsed.value.schedules.length > 0);
  const schedules = declaring.flatMap((p) => shifted(p.parsed.value.schedules, p.line, p.start));
  const context = [fileName, options.nowMs ?? '', ...declaring.map((p) => p.text)].join('\u0000');
  // Cluster budgets are checked by an `all` stage over the whole file, like its policies' names.
  const clusterBudgets = pieces.flatMap((p) => shifted(p.parsed.value.clusterBudgets ?? [], p.line, p.start));
  const file = clusterBudgets.length > 0 ? { ...EMPTY, schedules, clusterBudgets } : { ...EMPTY, schedules };
  return { fileName, pieces, scope: newScope(fileName, file), context };
}

/** Runs the `policy` stages on one piece's policies, the file's schedules moved into the piece's frame. */
function checkPiece(f: FilePieces, piece: ParsedPiece, options: CheckOptions): PieceCheck {
  const scope = newScope(f.fileName, {
    ...EMPTY,
    schedules: shifted(f.scope.file.schedules, -piece.line, -piece.start),
  });
  const units = piece.parsed.value.policies.map((ast) => newUnit(scope, ast, f.fileName));
  const ctx: CheckContext = { scopes: [scope], units, nowMs: options.nowMs };
  const byStage = STAGES.map((stage) => {
    if (stage.reach === 'all') return [];
    const before = scope.diagnostics.length;
    stage.run(ctx);
    // Here the `file` stages only build the schedule table; their reports belong to the whole file.
    return stage.reach === 'policy' ? scope.diagnostics.slice(before) : [];
  });
  const inside = (r: Range) => r.start.offset >= 0 && r.end.offset <= piece.text.length;
  const movable = byStage.every((ds) =>
    ds.every((d) => inside(d.range) && (d.related ?? []).every((x) => inside(x.range))),
  );
  return { byStage, usedSchedules: [...scope.usedSchedules], movable };
}

/**
 * A `file` or `all` stage over every file. An `all` stage decides from names alone: only when it reports are the
 * policies moved in place, for its ranges.
 */
function runPlaced(stage: Stage, files: readonly FilePieces[], options: CheckOptions): Diagnostic[][] {
  const out = runStage(stage, files, options, false);
  return stage.reach === 'all' && out.some((d) => d.length > 0) ? runStage(stage, files, options, true) : out;
}

/** A `file` or `all` stage over every file; `placed` moves the policies where they lie (a deep copy). */
function runStage(stage: Stage, files: readonly FilePieces[], options: CheckOptions, placed: boolean): Diagnostic[][] {
  for (const f of files) f.scope.diagnostics = [];
  const units =
    stage.reach === 'file'
      ? []
      : files.flatMap((f) =>
          f.pieces.flatMap((p) =>
            p.parsed.value.policies.map((ast) =>
              newUnit(f.scope, placed ? shifted(ast, p.line, p.start) : ast, f.fileName),
            ),
          ),
        );
  stage.run({ scopes: files.map((f) => f.scope), units, nowMs: options.nowMs });
  return files.map((f) => f.scope.diagnostics);
}

function moved(d: Diagnostic, p: ParsedPiece): Diagnostic {
  return p.start === 0 && p.line === 0 ? d : shifted(d, p.line, p.start);
}
