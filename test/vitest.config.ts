// SPDX-License-Identifier: Apache-2.0
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    testTimeout: 30000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/k8s/**', 'test/editor/**', '**/node_modules/**'] },
      },
      // Browser tests: Chromium and a fresh editor build are prepared once, by the global setup.
      { extends: true, test: { name: 'editor', include: ['test/editor/**/*.test.ts'], globalSetup: ['test/editor/global-setup.ts'], testTimeout: 60000, hookTimeout: 120000 } },
      {
        // Against a real control plane (test/k8s/control-plane/README.md): one shared by every
        // file, started only when a file of this project is selected; files run one at a time.
        extends: true,
        test: {
          name: 'k8s',
          include: ['test/k8s/**/*.test.ts'],
          globalSetup: ['test/k8s/control-plane/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 120000,
          hookTimeout: 120000,
        },
      },
    ],
  },
});
