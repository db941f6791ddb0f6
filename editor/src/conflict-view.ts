// SPDX-License-Identifier: Apache-2.0
// A save conflict: the message, a side-by-side diff of the cluster's version and the edited
// text, and the two ways out (save mine over theirs, or take theirs).
import { h, replaceChildren } from './dom.js';
import { KPOL_LANGUAGE_ID } from '../../grammar/monarch.js';
import { monaco } from './monaco.js';

let diff: monaco.editor.IStandaloneDiffEditor | undefined;

export function showConflict(
  el: HTMLElement,
  message: string,
  theirs: string,
  mine: string,
  on: { keepMine(): void; takeTheirs(): void },
): void {
  const host = h('div', { class: 'diff' });
  const keep = h('button', { id: 'keep-mine' }, 'Save mine over theirs');
  const take = h('button', { id: 'take-theirs' }, 'Take theirs');
  const close = () => {
    diff?.dispose();
    diff = undefined;
    el.hidden = true;
  };
  keep.onclick = () => {
    close();
    on.keepMine();
  };
  take.onclick = () => {
    close();
    on.takeTheirs();
  };
  replaceChildren(
    el,
    h('p', { class: 'conflict-message' }, message),
    h('p', { class: 'sub' }, 'Left: the version in the cluster. Right: your edit.'),
    host,
    h('div', { class: 'actions' }, keep, take),
  );
  el.hidden = false;
  diff?.dispose();
  diff = monaco.editor.createDiffEditor(host, {
    readOnly: true,
    automaticLayout: true,
    renderSideBySide: true,
    minimap: { enabled: false },
  });
  diff.setModel({
    original: monaco.editor.createModel(theirs, KPOL_LANGUAGE_ID),
    modified: monaco.editor.createModel(mine, KPOL_LANGUAGE_ID),
  });
}
