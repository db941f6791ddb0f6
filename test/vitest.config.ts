// SPDX-License-Identifier: Apache-2.0
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    testTimeout: 30000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/k8s/**', '**/node_modules/**'] },
      },
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
