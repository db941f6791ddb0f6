// SPDX-License-Identifier: Apache-2.0
// Monaco's core plus only the features the kpol editor uses (not the full bundle with every
// language). Monaco's own worker (diffs, word ranges) is bundled by Vite from its package.
import * as monaco from 'monaco-editor/editor';
import 'monaco-editor/features/codeEditor/register';
import 'monaco-editor/features/codicon/register';
import 'monaco-editor/features/hover/register';
import 'monaco-editor/features/suggest/register';
// The suggest widget itself is not part of the suggest feature entry in 0.57.
import 'monaco-editor/editor/contrib/suggest/browser/suggestController';
import 'monaco-editor/features/codeAction/register';
import 'monaco-editor/features/format/register';
import 'monaco-editor/features/diffEditor/register';
import 'monaco-editor/features/gotoError/register';
import 'monaco-editor/features/find/register';
import 'monaco-editor/features/bracketMatching/register';
import 'monaco-editor/features/contextmenu/register';
import 'monaco-editor/features/clipboard/register';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';

(globalThis as unknown as { MonacoEnvironment: object }).MonacoEnvironment = {
  getWorker: () => new EditorWorker(),
};

export { monaco };
