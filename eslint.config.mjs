// SPDX-License-Identifier: Apache-2.0
// `npm run lint`: ESLint with typescript-eslint's recommended rules over every TypeScript and
// JavaScript source, plus the structure limits the house keeps (nesting depth, complexity, file
// and function size), and the line width. Formatting is Prettier's (`npm run format`; settings in package.json);
// import directions are test/layers.test.ts's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'test-artifacts/**', 'editor/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'process',
          'console',
          'URL',
          'Buffer',
          'performance',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
        ].map((name) => [name, 'readonly']),
      ),
    },
    rules: {
      'max-depth': ['error', 4],
      // Prettier wraps code at 120; comments are wrapped by hand, and a long message is split
      // into `'…' +` pieces (a line continuation inside a multi-line template).
      'max-len': ['error', { code: 120 }],
      // A function past 30 branches is split, or says at its head why it stays whole.
      complexity: ['error', 30],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // The VS Code extension (editor/vscode/) is CommonJS, as VS Code loads extensions.
    files: ['editor/vscode/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Test glue reaches into browser pages and raw API answers, and matches ANSI escapes.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-control-regex': 'off' },
  },
);
