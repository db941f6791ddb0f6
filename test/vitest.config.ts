// SPDX-License-Identifier: Apache-2.0
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    testTimeout: 30000,
    projects: [
      { extends: true, test: { name: 'core', include: ['test/**/*.test.ts'], exclude: ['test/editor/**'] } },
      // Browser tests: Chromium and a fresh editor build are prepared once, by the global setup.
      { extends: true, test: { name: 'editor', include: ['test/editor/**/*.test.ts'], globalSetup: ['test/editor/global-setup.ts'], testTimeout: 60000, hookTimeout: 120000 } },
    ],
  },
});
