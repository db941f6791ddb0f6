// SPDX-License-Identifier: Apache-2.0
// The kpol editor page: Monaco with the kpol language, live diagnostics from the worker, the
// preview beside it, and load/save of ConfigMap policies with drafts and conflict handling.
import type { Diagnostic } from '../../grammar/diagnostic.js';
import { hasErrors } from '../../grammar/diagnostic.js';
import { KPOL_LANGUAGE_ID } from '../../grammar/monarch.js';
import type { PolicySource } from '../../src/core/policy/load.js';
import type { Preview } from './analysis.js';
import { EditorApi, takeToken, type PolicyAddress, type StoredPolicy } from './api.js';
import { renderCalendar } from './calendar-view.js';
import { clusterWords, type ClusterWords } from '../../src/core/cluster/cluster-words.js';
import { h, replaceChildren } from './dom.js';
import { addressKey, dropDraft, lastAddress, loadDraft, storeDraft } from './drafts.js';
import { registerKpol } from './language.js';
import { setDiagnostics } from './markers.js';
import { monaco } from './monaco.js';
import { renderNow } from './preview-view.js';
import type { EditedDoc } from './protocol.js';
import { renderSimulation } from './simulate-view.js';
import { showConflict } from './conflict-view.js';
import { starterPolicy } from './starter.js';
import { KpolWorkers } from './worker-client.js';
import './style.css';

const $ = (id: string) => document.getElementById(id)!;
const status = (text: string, kind: 'info' | 'ok' | 'warn' | 'error' = 'info') => {
  const el = $('status');
  el.textContent = text;
  el.className = kind;
};

const api = new EditorApi(takeToken());
let words: ClusterWords = { nodePools: [], labels: new Map(), namespaces: [] };
let stored: StoredPolicy[] = [];
/** Which policy governs each NodePool now (null: none), for a new policy's starting text. */
let governedBy: Record<string, string | null> = {};
let current: { address: PolicyAddress; baseVersion?: string; baseText: string } | undefined;
let diagnostics: Diagnostic[] = [];
let lastPreview: Preview | undefined;
let checkedText = '';
const sentText = new Map<number, string>();

const workers = new KpolWorkers({
  diagnostics(d, seq) {
    diagnostics = d;
    checkedText = sentText.get(seq) ?? checkedText;
    for (const k of sentText.keys()) if (k <= seq) sentText.delete(k);
    setDiagnostics(model, d);
    renderProblems(d);
    if (hasErrors(d)) {
      if (lastPreview) markStale();
      else waitingForErrors();
    }
    dispatchEvent(new CustomEvent('kpol-markers', { detail: seq }));
  },
  preview(p) {
    lastPreview = p;
    renderNow($('now'), p);
    renderCalendar($('calendar'), p.calendar);
  },
  failed: (message) => status(`the checker failed: ${message}`, 'error'),
});
registerKpol({ words: () => words, format: (text) => workers.format(text) });

const model = monaco.editor.createModel('', KPOL_LANGUAGE_ID, monaco.Uri.parse('inmemory://kpol/policy.kpol'));
const editor = monaco.editor.create($('editor'), {
  model,
  automaticLayout: true,
  minimap: { enabled: false },
  fontSize: 13,
  scrollBeyondLastLine: false,
  quickSuggestions: { other: true, strings: true, comments: false },
  renderValidationDecorations: 'on',
  fixedOverflowWidgets: true,
});

// Capture phase: before Monaco handles the key and schedules its render (worker-client.ts).
editor.getContainerDomNode().addEventListener('keydown', () => workers.readAtNextFrame(), true);

function doc(): EditedDoc {
  return { fileName: fileName(), text: model.getValue(), others: others() };
}

// The controller's names for ConfigMap keys (src/core/policy/load.ts), so diagnostics read the same.
function fileName(): string {
  const a = current?.address;
  return a ? `configmap/${a.namespace}/${a.name}/${a.key}` : 'policy.kpol';
}

// Rebuilt only when the stored policies change, so that a check sends them only then.
let othersOf: { stored: StoredPolicy[]; others: PolicySource[] } | undefined;
function others(): PolicySource[] {
  if (othersOf?.stored !== stored) {
    othersOf = {
      stored,
      others: stored
        .filter((p) => p.applied !== false)
        .map((p) => ({ fileName: `configmap/${p.namespace}/${p.name}/${p.key}`, text: p.text })),
    };
  }
  return othersOf.others;
}

/** Before any preview: the worker previews only text that checks, so say that rather than wait. */
function waitingForErrors(): void {
  const text = 'The policy has errors (listed under the editor): the preview appears once it checks.';
  replaceChildren($('now'), h('p', { class: 'sub' }, text));
  replaceChildren($('calendar'), h('p', { class: 'sub' }, text));
}

function markStale(): void {
  const el = $('now').querySelector('p.sub');
  if (el) el.textContent = 'The text has errors: this preview is of the last text that checked.';
}

function renderProblems(d: Diagnostic[]): void {
  const items = d.map((x) =>
    h(
      'li',
      { class: x.severity, 'data-code': x.code },
      h('span', { class: 'loc' }, `${x.range.start.line + 1}:${x.range.start.character + 1}`),
      ' ',
      h('code', {}, x.code),
      ' ',
      x.message,
      x.help ? h('span', { class: 'help' }, ` — ${x.help}`) : null,
    ),
  );
  replaceChildren($('problems'), items.length ? h('ul', {}, ...items) : h('p', { class: 'ok' }, 'No problems.'));
}

let suppressDraft = false;
model.onDidChangeContent((e) => {
  workers.edited(e);
  sentText.set(workers.check({ fileName: fileName(), others: others(), model }), model.getValue());
  workers.preview(doc);
  if (suppressDraft || !current) return;
  // localStorage writes are synchronous: keep them off the keystroke path, but never lose one.
  clearTimeout(draftTimer);
  draftTimer = setTimeout(keepDraft, DRAFT_DELAY_MS);
});

const DRAFT_DELAY_MS = 300;
let draftTimer: ReturnType<typeof setTimeout> | undefined;
function keepDraft(): void {
  clearTimeout(draftTimer);
  draftTimer = undefined;
  if (!current) return;
  storeDraft(current.address, {
    text: model.getValue(),
    ...(current.baseVersion !== undefined && { baseVersion: current.baseVersion }),
    savedAt: Date.now(),
  });
  status(model.getValue() === current.baseText ? 'No unsaved changes.' : 'Unsaved changes (kept in this browser).');
}
addEventListener('pagehide', () => draftTimer !== undefined && keepDraft());
document.addEventListener('visibilitychange', () => draftTimer !== undefined && keepDraft());

function open(address: PolicyAddress, base: StoredPolicy | undefined, template = ''): void {
  if (draftTimer !== undefined) keepDraft();
  const draft = loadDraft(address);
  current = { address, ...(base && { baseVersion: base.resourceVersion }), baseText: base?.text ?? template };
  suppressDraft = true;
  if (draft && draft.text !== current.baseText) {
    model.setValue(draft.text);
    if (draft.baseVersion !== undefined) current.baseVersion = draft.baseVersion;
    const changed = base && draft.baseVersion !== base.resourceVersion;
    const conflict = changed ? ' (the ConfigMap has changed since; saving will show the conflict)' : '';
    status(`Restored unsaved edits from this browser${conflict}.`, 'warn');
  } else {
    model.setValue(current.baseText);
    if (base) {
      const why = base.status && base.status !== 'valid' ? ` (${base.status})` : '';
      const refused = base.applied === false ? ` — not applied: the controller refused it${why}` : '';
      status(`Loaded ConfigMap ${address.namespace}/${address.name} (version ${base.resourceVersion})${refused}.`);
    } else status('New policy: not saved yet.');
  }
  suppressDraft = false;
  fillPolicyList();
}

async function loadPolicies(): Promise<void> {
  ({ policies: stored, nodePools: governedBy } = await api.policies());
}

function newPolicy(name: string): void {
  open({ namespace: 'kpol-system', name, key: `${name}.kpol` }, undefined, starterPolicy(name, governedBy));
}

async function refreshCluster(): Promise<void> {
  const cluster = await api.cluster();
  words = clusterWords(cluster.objects);
  workers.setCluster(cluster);
  workers.preview(doc, 0);
}

function fillPolicyList(): void {
  const select = $('policy') as HTMLSelectElement;
  const unsaved =
    current && !stored.some((p) => addressKey(p) === addressKey(current!.address)) ? current.address : undefined;
  replaceChildren(
    select,
    ...stored.map((p) => h('option', { value: addressKey(p) }, `${p.namespace}/${p.name} · ${p.key}`)),
    unsaved
      ? h(
          'option',
          { value: addressKey(unsaved) },
          `${unsaved.namespace}/${unsaved.name} · ${unsaved.key} (not saved yet)`,
        )
      : null,
    h('option', { value: 'new' }, 'New policy…'),
  );
  if (current) select.value = addressKey(current.address);
}

async function save(): Promise<void> {
  if (!current) return;
  // Keep the draft now: its timer would otherwise overwrite what the save says below.
  if (draftTimer !== undefined) keepDraft();
  if (hasErrors(diagnostics)) {
    status('The policy has errors: kept as a draft in this browser, not saved and not applied.', 'warn');
    return;
  }
  const text = model.getValue();
  const answer = await api.save(current.address, text, current.baseVersion, current.baseText);
  switch (answer.status) {
    case 'saved':
      if (model.getValue() === text) {
        clearTimeout(draftTimer);
        draftTimer = undefined;
      }
      current.baseVersion = answer.saved.resourceVersion;
      current.baseText = text;
      dropDraft(current.address);
      await loadPolicies();
      fillPolicyList();
      status(
        `Saved ConfigMap ${answer.saved.namespace}/${answer.saved.name} ` +
          `(version ${answer.saved.resourceVersion}); the controller reloads it.`,
        'ok',
      );
      return;
    case 'conflict':
      status(answer.message, 'error');
      return showConflict($('conflict'), answer.message, answer.current?.text ?? '', text, {
        keepMine: () => {
          if (current) current.baseVersion = answer.current?.resourceVersion;
          void save();
        },
        takeTheirs: () => {
          if (!current) return;
          current.baseVersion = answer.current?.resourceVersion;
          current.baseText = answer.current?.text ?? '';
          model.setValue(current.baseText);
          dropDraft(current.address);
          status('Took the version in the cluster.', 'ok');
        },
      });
    case 'invalid':
    case 'error':
      status(answer.message, 'error');
      return;
  }
}

async function simulate(): Promise<void> {
  if (!current) return;
  const out = $('simulation');
  replaceChildren(out, h('p', { class: 'sub' }, 'Simulating the next 24 h…'));
  try {
    renderSimulation(out, await api.simulate(current.address, model.getValue()));
  } catch (e) {
    replaceChildren(out, h('p', { class: 'error' }, (e as Error).message));
  }
}

function tabs(): void {
  for (const b of Array.from(document.querySelectorAll<HTMLButtonElement>('nav.tabs button'))) {
    b.onclick = () => {
      for (const x of Array.from(document.querySelectorAll('nav.tabs button'))) x.classList.toggle('active', x === b);
      for (const p of Array.from(document.querySelectorAll<HTMLElement>('.panel'))) p.hidden = p.id !== b.dataset.panel;
    };
  }
}

async function start(): Promise<void> {
  tabs();
  $('save').onclick = () => void save();
  editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => void save());
  $('format').onclick = () => void editor.getAction('editor.action.formatDocument')?.run();
  $('simulate').onclick = () => void simulate();
  ($('policy') as HTMLSelectElement).onchange = (ev) => {
    const v = (ev.target as HTMLSelectElement).value;
    if (v === 'new') {
      const name = prompt('ConfigMap name for the new policy (namespace kpol-system):', 'my-policy');
      if (!name) return fillPolicyList();
      newPolicy(name);
      return;
    }
    const p = stored.find((x) => addressKey(x) === v);
    if (p) open(p, p);
  };
  try {
    await Promise.all([loadPolicies(), refreshCluster()]);
  } catch (e) {
    status(`${(e as Error).message} — open the URL kpol printed (it carries the access token)`, 'error');
    return;
  }
  fillPolicyList();
  const last = lastAddress();
  const first = stored.find((p) => addressKey(p) === last) ?? stored[0];
  if (first) open(first, first);
  else newPolicy('my-policy');
  setInterval(() => void refreshCluster().catch(() => status('Lost the connection to kpol.', 'error')), 10_000);
  document.body.dataset.ready = 'true';
}

// Tests and the benchmark drive the page through the same objects a user's keystrokes reach.
Object.assign(globalThis, {
  kpolEditor: { monaco, editor, model, workers, diagnostics: () => diagnostics, checkedText: () => checkedText },
});
void start();
